package dev.exclusive;

/**
 * The lease of a lock ended while the work under it still ran, and the work's result was refused: the handle's
 * {@link OnLost#ROLLBACK} policy found the hold gone (inside a JTA transaction, the transaction was rolled back), or a
 * fenced write found that a newer holder had written (lock-jpa's {@code StaleFenceException}, its transaction marked
 * rollback-only).
 */
public class LockLostException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message   what was lost and what became of the work
     * @param lockName  the full lock name
     * @param storeName the store
     * @param cause     the underlying failure, or {@code null}
     */
    public LockLostException(String message, String lockName, String storeName, Throwable cause) {
        super(message, lockName, storeName, cause);
    }
}

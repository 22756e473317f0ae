package dev.exclusive;

/**
 * The lease of a lock ended while the work under it still ran, and the handle's {@link OnLost#ROLLBACK} policy
 * refused to let the work's result stand: inside a JTA transaction, the transaction was rolled back.
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

package dev.exclusive;

/**
 * The thread was interrupted while waiting for a lock. The thread's interrupt flag is set again before this
 * is thrown, and the lock is not held.
 */
public class LockInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param lockName  the lock that was waited for
     * @param storeName the store it was waited for in
     * @param cause     the interruption
     */
    public LockInterruptedException(String lockName, String storeName, InterruptedException cause) {
        super(
                "Interrupted while waiting for lock '" + lockName + "' in store '" + storeName + "'",
                lockName,
                storeName,
                cause);
    }
}

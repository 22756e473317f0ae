package dev.exclusive;

/**
 * The store could not be reached or did not answer within its timeout. Raised within that timeout, never
 * after a hang; the store keeps working once the backend is back, without being rebuilt.
 *
 * <p>When this is thrown by an acquisition, the lock is not held by the caller: stores make an acquisition
 * either commit or not happen, and a lease whose outcome is unknown expires at its ttl.
 */
public class LockStoreUnavailableException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message   what could not be reached, naming the store (never a password)
     * @param lockName  the lock concerned, or {@code null}
     * @param storeName the store concerned
     * @param cause     the underlying failure, or {@code null}
     */
    public LockStoreUnavailableException(String message, String lockName, String storeName, Throwable cause) {
        super(message, lockName, storeName, cause);
    }
}

package dev.exclusive;

/**
 * A lock name that is {@code null}, blank, longer than {@value dev.exclusive.LockNames#MAX_LENGTH}
 * characters, or contains a control character. The same rule holds in every store.
 */
public class InvalidLockNameException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message   what was wrong, naming the lock and the rule
     * @param lockName  the rejected name, or {@code null}
     * @param storeName the store concerned, or {@code null}
     */
    public InvalidLockNameException(String message, String lockName, String storeName) {
        super(message, lockName, storeName, null);
    }
}

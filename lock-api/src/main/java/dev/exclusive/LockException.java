package dev.exclusive;

import java.util.Optional;

/**
 * The root of every exception Exclusive throws. Unchecked: a lock that cannot be taken is reported by a
 * {@code false} or an unacquired {@link LockResult}, not by an exception; exceptions mean misuse or an
 * unreachable store.
 *
 * <p>Carries the lock and the store it concerns, where there is one, so that callers and logs need not
 * parse the message.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The full name of the lock concerned, or {@code null}. */
    private final String lockName;
    /** The name of the store concerned, or {@code null}. */
    private final String storeName;

    /**
     * @param message   what went wrong, naming the thing, the value and the fix
     * @param lockName  the lock concerned, or {@code null}
     * @param storeName the store concerned, or {@code null}
     * @param cause     the underlying failure, or {@code null}
     */
    public LockException(String message, String lockName, String storeName, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.storeName = storeName;
    }

    /** @return the full name of the lock concerned (store prefix included), if the failure concerns one */
    public Optional<String> lockName() {
        return Optional.ofNullable(lockName);
    }

    /** @return the name of the store concerned, if the failure concerns one */
    public Optional<String> storeName() {
        return Optional.ofNullable(storeName);
    }
}

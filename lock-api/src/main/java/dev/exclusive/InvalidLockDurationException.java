package dev.exclusive;

import java.time.Duration;

/**
 * A ttl that is not at least one millisecond, a negative wait, or a duration too large to compute with.
 * Thrown before any store is touched, so nothing is acquired or lost.
 */
public class InvalidLockDurationException extends LockException {

    private static final long serialVersionUID = 1L;

    private final transient Duration value;

    /**
     * @param message   what was wrong, naming the lock, the value and the fix
     * @param lockName  the lock concerned, or {@code null}
     * @param storeName the store concerned, or {@code null}
     * @param value     the rejected duration, or {@code null}
     */
    public InvalidLockDurationException(String message, String lockName, String storeName, Duration value) {
        super(message, lockName, storeName, null);
        this.value = value;
    }

    /** @return the rejected duration ({@code null} when it was {@code null}) */
    public Duration value() {
        return value;
    }
}

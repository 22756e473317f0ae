package dev.exclusive;

import java.time.Duration;
import java.util.Optional;

/**
 * The lock was held by someone else for the whole wait. Thrown by {@code @Exclusive(onBusy = THROW)} and by
 * {@link LockResult#orElseThrow()}; carries the lock, the store and, when the store knows it, how long the
 * current holder's lease still runs (a JAX-RS mapper turns it into {@code Retry-After}).
 */
public class LockBusyException extends LockException {

    private static final long serialVersionUID = 1L;

    private final transient Duration retryAfter;

    /**
     * @param message    what was busy, naming the lock and the store
     * @param lockName   the lock concerned
     * @param storeName  the store concerned
     * @param retryAfter how long the holder's lease still ran, or {@code null} when unknown
     */
    public LockBusyException(String message, String lockName, String storeName, Duration retryAfter) {
        super(message, lockName, storeName, null);
        this.retryAfter = retryAfter;
    }

    /** @return how long the current holder's lease still ran when the caller gave up, if known */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}

package dev.exclusive.internal;

import dev.exclusive.InvalidLockDurationException;
import java.time.Duration;

/** The checks every duration passes before a store sees it, with messages that name the lock and the value. */
public final class Durations {

    /** No lease may be longer than this: far beyond any real work, and safe to add to any clock. */
    public static final Duration MAX = Duration.ofDays(365L * 100);

    private Durations() {}

    /**
     * @return {@code ttl}, if it is at least 1 ms and at most {@link #MAX}
     * @throws InvalidLockDurationException otherwise
     */
    public static Duration requireTtl(Duration ttl, String lockName, String storeName) {
        if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(MAX) > 0) {
            throw new InvalidLockDurationException(
                    where(lockName, storeName) + "ttl must be between 1ms and " + MAX.toDays() + " days, got " + ttl,
                    lockName,
                    storeName,
                    ttl);
        }
        return ttl;
    }

    /**
     * @return {@code ttlSeconds} as a duration, if positive and not over {@link #MAX}
     * @throws InvalidLockDurationException otherwise
     */
    public static Duration ttlSeconds(long ttlSeconds, String lockName, String storeName) {
        if (ttlSeconds <= 0 || ttlSeconds > MAX.getSeconds()) {
            throw new InvalidLockDurationException(
                    where(lockName, storeName) + "ttl must be between 1 and " + MAX.getSeconds() + " seconds, got "
                            + ttlSeconds,
                    lockName,
                    storeName,
                    ttlSeconds <= 0 ? Duration.ofSeconds(ttlSeconds) : null);
        }
        return Duration.ofSeconds(ttlSeconds);
    }

    /**
     * @return {@code wait} in nanoseconds, if it is zero or positive and at most {@link #MAX}
     * @throws InvalidLockDurationException otherwise
     */
    public static long requireWaitNanos(Duration wait, String lockName, String storeName) {
        if (wait == null || wait.isNegative() || wait.compareTo(MAX) > 0) {
            throw new InvalidLockDurationException(
                    where(lockName, storeName) + "wait must be between PT0S and " + MAX.toDays() + " days, got " + wait,
                    lockName,
                    storeName,
                    wait);
        }
        return wait.toNanos();
    }

    /**
     * @return {@code minHold}, if it is zero or positive and at most {@code ttl} (a lock cannot be held at least
     *         longer than its lease)
     * @throws InvalidLockDurationException otherwise
     */
    public static Duration requireMinHold(Duration minHold, Duration ttl, String lockName, String storeName) {
        if (minHold == null || minHold.isNegative() || minHold.compareTo(ttl) > 0) {
            throw new InvalidLockDurationException(
                    where(lockName, storeName) + "minHold must be between PT0S and the ttl " + ttl + ", got " + minHold,
                    lockName,
                    storeName,
                    minHold);
        }
        return minHold;
    }

    private static String where(String lockName, String storeName) {
        return "Lock '" + lockName + "' in store '" + storeName + "': ";
    }
}

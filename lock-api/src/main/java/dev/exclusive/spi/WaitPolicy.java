package dev.exclusive.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * How often a waiter re-checks a busy lock in a store, between the wake-ups the store's
 * {@link LockStore#awaitRelease} gives it.
 *
 * <p>A store whose wake-ups are complete (every release and expiry reaches every waiter, as in one JVM)
 * declares {@link #signalled()}: waiters then sleep until a wake-up, the holder's expiry or the end of their
 * wait, and never poll. Otherwise waiters back off exponentially from {@code minPause} to {@code maxPause}
 * with jitter (each pause drawn between half and all of its step), and never beyond the time they have left
 * or the holder's expiry.
 *
 * @param minPause the first pause; positive
 * @param maxPause the longest pause; at least {@code minPause}, or {@code null} for {@link #signalled()}
 */
public record WaitPolicy(Duration minPause, Duration maxPause) {

    private static final WaitPolicy SIGNALLED = new WaitPolicy(null, null);

    /**
     * Checks that both pauses are {@code null} ({@link #signalled()}) or that {@code 0 < minPause <= maxPause}.
     *
     * @param minPause the first pause
     * @param maxPause the longest pause
     * @throws IllegalArgumentException if neither holds
     */
    public WaitPolicy {
        if (minPause != null || maxPause != null) {
            Objects.requireNonNull(minPause, "minPause");
            Objects.requireNonNull(maxPause, "maxPause");
            if (minPause.isNegative() || minPause.isZero() || maxPause.compareTo(minPause) < 0) {
                throw new IllegalArgumentException(
                        "A wait policy needs 0 < minPause <= maxPause, got " + minPause + " and " + maxPause);
            }
        }
    }

    /** @return the policy of a store that wakes every waiter itself: no polling */
    public static WaitPolicy signalled() {
        return SIGNALLED;
    }

    /**
     * @param minPause the first pause
     * @param maxPause the longest pause
     * @return a jittered exponential backoff between the two
     */
    public static WaitPolicy backoff(Duration minPause, Duration maxPause) {
        return new WaitPolicy(minPause, maxPause);
    }

    /** @return {@code true} if waiters rely on the store's wake-ups alone */
    public boolean isSignalled() {
        return minPause == null;
    }
}

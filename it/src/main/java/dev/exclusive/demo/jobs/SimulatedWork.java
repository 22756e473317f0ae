package dev.exclusive.demo.jobs;

import java.time.Duration;

/** Stands in for the real work of a demo job: it takes the given time. */
final class SimulatedWork {

    /**
     * The longest a demo call may ask a job to take, so that a typo cannot hold a request thread for hours; below
     * every demo job's ttl (the shortest, the user import's, is 60 s), so that no call can outlive its lock.
     */
    static final Duration MAX = Duration.ofSeconds(45);

    private SimulatedWork() {}

    static void take(Duration duration) {
        if (duration.isNegative() || duration.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    "work must take between 0 and " + MAX.toSeconds() + " s, got " + duration.toSeconds() + " s");
        }
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while doing simulated work", e);
        }
    }
}

package dev.exclusive.redis;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * This JVM's estimate of the Redis clock, for the acquisition and expiry times of {@code acquire.lua}'s answer,
 * which is the fence alone (the script reads {@code TIME} for the fence, and answers one integer). The estimate
 * is one {@code TIME} reading, taken again when it is older than {@value #RESYNC_SECONDS} s, advanced by
 * {@link System#nanoTime()}: it is off by at most the round trip of that reading plus the drift between the two
 * clocks since, and a step of this JVM's wall clock does not move it. Nothing in Redis depends on it: expiry
 * and the minimum hold are decided by Redis alone, and inspection reads {@code TIME} itself. A
 * reading that fails (an exhausted pool, a lost reply) leaves the estimate on the last reading, or on this JVM's
 * wall clock before the first one: the acquisition it dates was granted, and is answered as such. Thread-safe.
 */
final class RedisClock {

    static final long RESYNC_SECONDS = 10;
    private static final long RESYNC_NANOS = TimeUnit.SECONDS.toNanos(RESYNC_SECONDS);

    /** A Redis time in microseconds and the {@code nanoTime} it was read at (the middle of its round trip). */
    private record Reading(long redisMicros, long nanos) {}

    private volatile Reading last;

    /**
     * @param nanos a {@link System#nanoTime()} reading, such as the arrival of a reply
     * @param time  a {@code TIME} call, run only when the last reading is missing or stale; if it throws, the
     *              last reading (or this JVM's wall clock) stands in
     * @return the Redis clock at {@code nanos}, in epoch milliseconds, estimated
     */
    long millisAt(long nanos, Supplier<Object> time) {
        Reading reading = last;
        if (reading == null || nanos - reading.nanos > RESYNC_NANOS) {
            try {
                reading = read(time);
                last = reading;
            } catch (RuntimeException e) {
                // the reading follows an acquisition Redis granted: an estimate must not turn it into a failure
                // (the caller would be told "unavailable" and the lock stay taken, by nobody, for its ttl)
                return reading != null
                        ? millisFrom(reading, nanos)
                        : System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
            }
        }
        return millisFrom(reading, nanos);
    }

    private static long millisFrom(Reading reading, long nanos) {
        return Math.floorDiv(reading.redisMicros * 1_000 + (nanos - reading.nanos), 1_000_000);
    }

    private static Reading read(Supplier<Object> time) {
        long before = System.nanoTime();
        List<?> reply = (List<?>) time.get();
        long after = System.nanoTime();
        long micros = Long.parseLong(RedisReplies.text(reply.get(0))) * 1_000_000
                + Long.parseLong(RedisReplies.text(reply.get(1)));
        return new Reading(micros, before + (after - before) / 2);
    }
}

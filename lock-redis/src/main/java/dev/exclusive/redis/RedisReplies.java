package dev.exclusive.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Reads the replies of this package's scripts; their shapes are documented in each script's header. */
final class RedisReplies {

    private RedisReplies() {}

    /**
     * @param answer    an {@code acquire.lua} reply
     * @param redisNow  the Redis clock when it arrived, estimated ({@link RedisClock})
     * @param ttl       the ttl asked for
     * @return the outcome it describes
     */
    static Acquisition acquisition(Object answer, long redisNow, Duration ttl) {
        if (answer instanceof Long fence) {
            Instant now = Instant.ofEpochMilli(redisNow);
            return new Acquisition.Acquired(fence, now, now.plus(ttl));
        }
        List<?> reply = (List<?>) answer;
        if (reply.size() == 2) { // the caller's own hold, renewed
            Instant now = Instant.ofEpochMilli(redisNow);
            return new Acquisition.Acquired(number(reply.get(0)), now.minusMillis(number(reply.get(1))), now.plus(ttl));
        }
        long remaining = number(reply.get(0));
        return remaining >= 0 ? new Acquisition.Busy(Duration.ofMillis(remaining)) : Acquisition.Busy.unknown();
    }

    /** @return the live lock an {@code inspect.lua} reply describes, or {@code null} for its "no live lock" */
    static LockEntry entry(String name, Object answer) {
        List<?> reply = (List<?>) answer;
        if (reply == null) {
            return null;
        }
        if (reply.size() == 4) {
            return lease(name, text(reply.get(0)), number(reply.get(1)), micros(reply.get(2), reply.get(3)) / 1_000);
        }
        // a hash of the previous layout: owner, holder, acquired, fence, remaining, Redis time
        long remaining = Math.max(1, number(reply.get(4)) - 2); // leaves out acquire.lua's slack
        long now = micros(reply.get(5), reply.get(6)) / 1_000;
        return new LockEntry(
                name,
                text(reply.get(0)),
                LockHolder.decode(text(reply.get(1))),
                Instant.ofEpochMilli(Long.parseLong(text(reply.get(2)))),
                Instant.ofEpochMilli(now + remaining),
                Duration.ofMillis(remaining),
                Long.parseLong(text(reply.get(3))));
    }

    /**
     * Parses a lease string ({@code <owner>\n<waiters>\n<fence>\n<span>\n<holder>}, see {@code acquire.lua}).
     *
     * @param pttl the key's remaining time, slack included
     * @param now  the Redis clock in epoch milliseconds when it was read
     * @return its entry, or {@code null} if the string is not a lease this store wrote
     */
    static LockEntry lease(String name, String lease, long pttl, long now) {
        int owner = lease.indexOf('\n');
        int waiters = owner < 0 ? -1 : lease.indexOf('\n', owner + 1);
        int fence = waiters < 0 ? -1 : lease.indexOf('\n', waiters + 1);
        int span = fence < 0 ? -1 : lease.indexOf('\n', fence + 1);
        if (span < 0) {
            return null;
        }
        try {
            long fenceValue = Long.parseLong(lease, waiters + 1, fence, 10);
            long elapsed = Long.parseLong(lease, fence + 1, span, 10) - pttl;
            long remaining = Math.max(1, pttl - 2); // leaves out acquire.lua's slack: never above the ttl asked
            return new LockEntry(
                    name,
                    RedisKeys.unescapeOwner(lease.substring(0, owner)),
                    LockHolder.decode(lease.substring(span + 1)),
                    Instant.ofEpochMilli(now - elapsed),
                    Instant.ofEpochMilli(now + remaining),
                    Duration.ofMillis(remaining),
                    fenceValue);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** @return a script's 1 as {@code true}, 0 as {@code false} */
    static boolean yes(Object reply) {
        return number(reply) == 1;
    }

    static long number(Object reply) {
        return ((Number) reply).longValue();
    }

    static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : (String) reply;
    }

    private static long micros(Object seconds, Object micros) {
        return Long.parseLong(text(seconds)) * 1_000_000 + Long.parseLong(text(micros));
    }
}

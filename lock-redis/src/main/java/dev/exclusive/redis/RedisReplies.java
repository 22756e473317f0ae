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

    /** @return the outcome that an {@code acquire.lua} reply describes */
    static Acquisition acquisition(Object answer) {
        List<?> reply = (List<?>) answer;
        if (number(reply.get(0)) == 1) {
            return new Acquisition.Acquired(
                    number(reply.get(1)),
                    Instant.ofEpochMilli(number(reply.get(2))),
                    Instant.ofEpochMilli(number(reply.get(3))));
        }
        long remaining = number(reply.get(1));
        return remaining >= 0 ? new Acquisition.Busy(Duration.ofMillis(remaining)) : Acquisition.Busy.unknown();
    }

    /** @return the live lock an {@code inspect.lua} reply describes, or {@code null} for its "no live lock" */
    static LockEntry entry(String name, Object answer) {
        List<?> reply = (List<?>) answer;
        if (reply == null) {
            return null;
        }
        long acquired = number(reply.get(2));
        long remaining = number(reply.get(4));
        long now = number(reply.get(5));
        return new LockEntry(
                name,
                text(reply.get(0)),
                LockHolder.decode(text(reply.get(1))),
                Instant.ofEpochMilli(acquired),
                Instant.ofEpochMilli(now + remaining),
                Duration.ofMillis(remaining),
                number(reply.get(3)));
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
}

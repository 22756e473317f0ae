package dev.exclusive.admin;

import dev.exclusive.LockStatistics.GroupContention;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the console's charts show: this server's lock activity over the last 15 minutes, averaged per
 * {@link #bucket()}, and the most contended lock groups (name templates) of that window. Only this server's calls
 * are counted: each server of a cluster keeps its own statistics ({@link dev.exclusive.LockStatistics}).
 *
 * @param from          the window's start
 * @param to            the window's end: the end of the last complete bucket
 * @param bucket        how long each bucket is
 * @param buckets       the complete buckets of the window, oldest first; a bucket without any call is all zero
 * @param mostContended the most contended groups, most contended first; only groups that were contended
 */
public record ConsoleActivity(
        Instant from, Instant to, Duration bucket, List<Bucket> buckets, List<GroupContention> mostContended) {

    /**
     * Copies the lists.
     *
     * @param from          the window's start
     * @param to            the window's end
     * @param bucket        how long each bucket is
     * @param buckets       the complete buckets, oldest first
     * @param mostContended the most contended groups
     */
    public ConsoleActivity {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(bucket, "bucket");
        buckets = List.copyOf(buckets);
        mostContended = List.copyOf(mostContended);
    }

    /**
     * One bucket: the calls of all stores of this server that ended in it, per second on average.
     *
     * @param end                   the bucket's end (exclusive); it starts {@link ConsoleActivity#bucket()} earlier
     * @param acquisitionsPerSecond attempts that acquired
     * @param busyPerSecond         attempts that ended without the lock because it was held (busy answers and
     *                              waits that ran out)
     * @param waitsPerSecond        attempts that found the lock held and started to wait
     */
    public record Bucket(Instant end, double acquisitionsPerSecond, double busyPerSecond, double waitsPerSecond) {}
}

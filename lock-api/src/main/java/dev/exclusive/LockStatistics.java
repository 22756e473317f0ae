package dev.exclusive;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Contention statistics of the handles of one registry, kept in memory for the last 15 minutes: what the
 * console's tiles and charts show. Add it as a listener ({@code LockRegistry.builder().listener(statistics)});
 * in a CDI application the extension adds one and makes it injectable.
 *
 * <pre>{@code
 * LockStatistics statistics = new LockStatistics();
 * LockRegistry registry = LockRegistry.builder().store("local", new MemoryLockStore()).listener(statistics).build();
 * ...
 * StoreActivity activity = statistics.lastMinute("local");
 * }</pre>
 *
 * <p><b>What is counted.</b> Per store: acquisitions ({@link LockListener#acquired(Lock, Duration)}), busy answers
 * to one attempt ({@link LockListener#busy(Lock, Duration)}), waits that ran out
 * ({@link LockListener#timedOut(Lock, Duration)}), store errors of any operation
 * ({@link LockListener#failed(Lock, LockListener.Operation, Duration, LockStoreUnavailableException)}), and attempts
 * that had to wait ({@link LockListener#waiting(Lock)}). A wait is the {@code waited} duration of an acquired or
 * timed-out attempt (a one-shot {@code get} that acquired counts too, with its store round trip as its wait).
 * Only this JVM's handles are seen: each server of a cluster has its own statistics.
 *
 * <p><b>Time.</b> Events are put in slots by the wall clock ({@link Clock}, the system's by default) at the moment
 * they are heard; durations are the ones the events carry. Per store: one slot per second for the last
 * {@value #MAX_WINDOW_SECONDS} seconds, and wait histograms for the last 60 seconds. Per group: one slot per minute
 * for the last 16 minutes, each with a wait histogram. A slot is reused when its second (minute) comes round again;
 * an event that arrives with a clock reading older than its slot's current period is dropped.
 *
 * <p><b>p99.</b> Waits go into fixed buckets from 100 µs to 60 s (bounds 0.1, 0.2, 0.5 ms, then 1, 1.5, 2, 3, 5,
 * 7 per decade up to 1 s, then 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 45, 60 s). A p99 is the upper bound of the bucket
 * the 99th percentile falls in: never below the true value, at most the next bound above it; a p99 beyond 60 s is
 * reported as 60 s.
 *
 * <p><b>Bounded memory.</b> At most {@value #MAX_STORES} stores and {@value #MAX_GROUPS} groups per store are
 * counted under their own names: the counter arrays of a store hold about 60 KB and those of each of its groups about 5 KB (so at most about
 * 1 MB per store, however many locks it has); the events of stores past that are counted
 * under the store {@value #OTHER}, and those of groups past that under the group {@value #OTHER} of their store.
 * Groups are {@link Lock#group()}: the name template of an {@code @Exclusive} method, the group a handle was given,
 * or else {@link LockNames#group(String)} of the name, the same rule as the OpenTelemetry metrics.
 *
 * <p><b>Thread safety and cost.</b> Thread-safe. Counting takes no lock and allocates nothing (atomic arrays; a
 * slot that starts a new period is cleared under its ring's monitor once per period); only a wait allocates, to
 * track its waiter for {@link #waitingOn(String, String)}. Reads are not an atomic snapshot: events that arrive
 * while a read runs may be in it or not.
 */
public final class LockStatistics implements LockListener {

    /** The longest window {@link #perSecond(Duration)} and {@link #mostContended(int, Duration)} accept, in seconds. */
    public static final int MAX_WINDOW_SECONDS = 900;
    /** The most stores counted under their own names. */
    public static final int MAX_STORES = 200;
    /** The most groups of one store counted under their own names. */
    public static final int MAX_GROUPS = 200;
    /** The store and group names that the ones past {@link #MAX_STORES} and {@link #MAX_GROUPS} are counted under. */
    public static final String OTHER = "_other";

    /**
     * One store's activity over the last minute: the 60 one-second slots up to and including the current second.
     *
     * @param store                 the store's name
     * @param acquisitions          attempts that acquired
     * @param busy                  one-shot attempts ({@code get}, or {@code block} with no wait) that found the lock
     *                              held
     * @param timeouts              waits that ran out with the lock still held
     * @param errors                store operations (acquire, release, extend) that could not reach the store
     * @param acquisitionsPerSecond {@code acquisitions / 60}
     * @param busyPerSecond         attempts that ended without the lock because it was held, per second:
     *                              {@code (busy + timeouts) / 60} (the answers an {@code @Exclusive} method turns
     *                              into {@link LockBusyException})
     * @param p99Wait               the 99th percentile of the waits of the acquired and timed-out attempts; empty
     *                              when there were none
     */
    public record StoreActivity(
            String store,
            long acquisitions,
            long busy,
            long timeouts,
            long errors,
            double acquisitionsPerSecond,
            double busyPerSecond,
            Optional<Duration> p99Wait) {}

    /**
     * The activity of all stores in one second.
     *
     * @param second       the start of the second
     * @param acquisitions attempts that acquired
     * @param busy         attempts that ended without the lock because it was held: one-shot busy answers and
     *                     waits that ran out
     * @param waits        attempts that found the lock held and started to wait ({@link LockListener#waiting(Lock)})
     */
    public record ActivityPoint(Instant second, long acquisitions, long busy, long waits) {}

    /**
     * How contended one group of locks was.
     *
     * @param store        the store's name
     * @param group        the group ({@link Lock#group()}), or {@value LockStatistics#OTHER}
     * @param contended    busy answers + waits that ran out + attempts that had to wait (a wait that runs out
     *                     counts twice: it waited, and it gave up)
     * @param acquisitions attempts that acquired
     * @param p99Wait      the 99th percentile of the waits of the acquired and timed-out attempts; empty when
     *                     there were none
     */
    public record GroupContention(
            String store, String group, long contended, long acquisitions, Optional<Duration> p99Wait) {}

    /**
     * The callers of this JVM that wait for one lock now.
     *
     * @param callers how many
     * @param longest how long the one that has waited longest has waited so far (by the statistics' clock)
     */
    public record Waiting(int callers, Duration longest) {}

    private final Clock clock;
    private final Map<String, StoreStats> stores = new ConcurrentHashMap<>();
    private final Map<WaitKey, Waiters> waiters = new ConcurrentHashMap<>();
    /** Waits in progress on all threads, so that outcomes skip the thread-local lookup when there are none. */
    private final AtomicInteger waitsInProgress = new AtomicInteger();
    /** The wait in progress on the current thread; events of one attempt all come on the caller's thread. */
    private final ThreadLocal<Waiter> currentWait = new ThreadLocal<>();

    /** Statistics on the system's wall clock. */
    public LockStatistics() {
        this(Clock.systemUTC());
    }

    /**
     * Statistics on {@code clock}, for tests: slots are taken from its {@link Clock#millis()}, and
     * {@link Waiting#longest()} is measured on it.
     *
     * @param clock the wall clock
     */
    public LockStatistics(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    // ---------------------------------------------------------------- reading

    /** @return the names of the stores events were heard from (including {@value #OTHER} if any overflowed), sorted */
    public List<String> stores() {
        List<String> names = new ArrayList<>(stores.keySet());
        names.sort(Comparator.naturalOrder());
        return List.copyOf(names);
    }

    /**
     * @param store a store's name
     * @return its activity over the last 60 seconds (the current second included); all zero for a store nothing
     *         was heard from
     * @throws NullPointerException if {@code store} is {@code null}
     */
    public StoreActivity lastMinute(String store) {
        Objects.requireNonNull(store, "store");
        StoreStats stats = stores.get(store);
        if (stats == null) {
            return new StoreActivity(store, 0, 0, 0, 0, 0.0, 0.0, Optional.empty());
        }
        long now = nowSecond();
        long[] sums = new long[SECOND_WIDTH];
        for (long second = now - 59; second <= now; second++) {
            stats.seconds.addTo(second, sums);
        }
        long[] histogram = new long[Buckets.COUNT];
        for (long second = now - 59; second <= now; second++) {
            stats.histograms.addTo(second, histogram);
        }
        return new StoreActivity(
                store,
                sums[ACQUIRED],
                sums[BUSY],
                sums[TIMED_OUT],
                sums[ERRORS],
                sums[ACQUIRED] / 60.0,
                (sums[BUSY] + sums[TIMED_OUT]) / 60.0,
                Buckets.p99(histogram, 0));
    }

    /**
     * The activity of all stores, second by second.
     *
     * @param window how far back: the seconds up to and including the current one, {@code ceil(window)} of them;
     *               at most {@value #MAX_WINDOW_SECONDS} seconds
     * @return one point per second, oldest first, seconds without events included as zero points
     * @throws IllegalArgumentException if {@code window} is not positive or longer than 15 minutes
     * @throws NullPointerException     if {@code window} is {@code null}
     */
    public List<ActivityPoint> perSecond(Duration window) {
        int seconds = windowSeconds(window);
        long now = nowSecond();
        List<StoreStats> all = List.copyOf(stores.values());
        List<ActivityPoint> points = new ArrayList<>(seconds);
        long[] sums = new long[SECOND_WIDTH];
        for (long second = now - seconds + 1; second <= now; second++) {
            Arrays.fill(sums, 0);
            for (StoreStats stats : all) {
                stats.seconds.addTo(second, sums);
            }
            points.add(new ActivityPoint(
                    Instant.ofEpochSecond(second), sums[ACQUIRED], sums[BUSY] + sums[TIMED_OUT], sums[WAITS]));
        }
        return List.copyOf(points);
    }

    /**
     * The groups with the most contention, over all stores.
     *
     * @param limit  the most groups to return
     * @param window how far back, at most 15 minutes; counted in whole minutes: every one-minute slot that overlaps
     *               the window, the current minute included
     * @return the groups with any contention or acquisition in the window, by {@link GroupContention#contended()}
     *         descending, then by acquisitions descending, then by store and group name; at most {@code limit}
     * @throws IllegalArgumentException if {@code limit} is negative, or {@code window} is not positive or longer
     *                                  than 15 minutes
     * @throws NullPointerException     if {@code window} is {@code null}
     */
    public List<GroupContention> mostContended(int limit, Duration window) {
        if (limit < 0) {
            throw new IllegalArgumentException("mostContended: limit must be 0 or more, got " + limit);
        }
        int seconds = windowSeconds(window);
        long nowSecond = nowSecond();
        long lastMinute = Math.floorDiv(nowSecond, 60);
        long firstMinute = Math.floorDiv(nowSecond - seconds + 1, 60);
        List<GroupContention> found = new ArrayList<>();
        long[] sums = new long[GROUP_WIDTH];
        for (StoreStats stats : List.copyOf(stores.values())) {
            for (GroupStats group : List.copyOf(stats.groups.values())) {
                Arrays.fill(sums, 0);
                for (long minute = firstMinute; minute <= lastMinute; minute++) {
                    group.minutes.addTo(minute, sums);
                }
                long contended = sums[BUSY] + sums[TIMED_OUT] + sums[WAITS];
                if (contended > 0 || sums[ACQUIRED] > 0) {
                    found.add(new GroupContention(
                            stats.name, group.name, contended, sums[ACQUIRED], Buckets.p99(sums, GROUP_HISTOGRAM)));
                }
            }
        }
        found.sort(Comparator.comparingLong(GroupContention::contended)
                .reversed()
                .thenComparing(
                        Comparator.comparingLong(GroupContention::acquisitions).reversed())
                .thenComparing(GroupContention::store)
                .thenComparing(GroupContention::group));
        return List.copyOf(found.subList(0, Math.min(limit, found.size())));
    }

    /**
     * The callers of this JVM waiting for one lock now: those inside a {@link Lock#block(Duration)} between
     * {@link LockListener#waiting(Lock)} and the attempt's outcome.
     *
     * @param store    the store's name
     * @param lockName the full lock name ({@link Lock#name()}, store prefix included)
     * @return the waiters; empty when none
     * @throws NullPointerException if an argument is {@code null}
     */
    public Optional<Waiting> waitingOn(String store, String lockName) {
        Waiters found = waiters.get(
                new WaitKey(Objects.requireNonNull(store, "store"), Objects.requireNonNull(lockName, "lockName")));
        return found == null ? Optional.empty() : found.summary(clock.instant());
    }

    // ---------------------------------------------------------------- hearing

    @Override
    public void waiting(Lock lock) {
        long second = nowSecond();
        StoreStats stats = store(lock.storeName());
        stats.seconds.increment(second, WAITS);
        stats.group(lock.group()).minutes.increment(Math.floorDiv(second, 60), WAITS);
        Waiter previous = currentWait.get();
        if (previous != null) {
            // An attempt that ended without an outcome (a store bug threw): its waiter ends here.
            endWait(previous);
        }
        Waiter waiter = new Waiter(lock, new WaitKey(lock.storeName(), lock.name()), clock.instant());
        currentWait.set(waiter);
        waitsInProgress.incrementAndGet();
        waiters.compute(waiter.key, (key, list) -> {
            Waiters into = list == null ? new Waiters() : list;
            into.add(waiter);
            return into;
        });
    }

    @Override
    public void acquired(Lock lock, Duration waited) {
        outcome(lock, ACQUIRED, waited);
    }

    @Override
    public void busy(Lock lock, Duration waited) {
        outcome(lock, BUSY, null);
    }

    @Override
    public void timedOut(Lock lock, Duration waited) {
        outcome(lock, TIMED_OUT, waited);
    }

    @Override
    public void failed(
            Lock lock, LockListener.Operation operation, Duration elapsed, LockStoreUnavailableException error) {
        if (operation == LockListener.Operation.ACQUIRE) {
            waitEnded(lock);
        }
        long second = nowSecond();
        StoreStats stats = store(lock.storeName());
        stats.seconds.increment(second, ERRORS);
        stats.group(lock.group()).minutes.increment(Math.floorDiv(second, 60), ERRORS);
    }

    @Override
    public void interrupted(Lock lock, Duration waited) {
        waitEnded(lock);
    }

    private void outcome(Lock lock, int counter, Duration waited) {
        waitEnded(lock);
        long second = nowSecond();
        StoreStats stats = store(lock.storeName());
        stats.seconds.increment(second, counter);
        GroupStats group = stats.group(lock.group());
        long minute = Math.floorDiv(second, 60);
        if (waited == null) {
            group.minutes.increment(minute, counter);
        } else {
            int bucket = Buckets.index(waited.toNanos());
            stats.histograms.increment(second, bucket);
            group.minutes.increment(minute, counter, GROUP_HISTOGRAM + bucket);
        }
    }

    private void waitEnded(Lock lock) {
        if (waitsInProgress.get() == 0) {
            return;
        }
        Waiter waiter = currentWait.get();
        if (waiter != null && waiter.lock == lock) {
            endWait(waiter);
        }
    }

    private void endWait(Waiter waiter) {
        currentWait.remove();
        waitsInProgress.decrementAndGet();
        waiters.computeIfPresent(waiter.key, (key, list) -> list.remove(waiter) ? null : list);
    }

    private StoreStats store(String name) {
        StoreStats found = stores.get(name);
        if (found != null) {
            return found;
        }
        if (stores.size() >= MAX_STORES) {
            name = OTHER;
        }
        return stores.computeIfAbsent(name, StoreStats::new);
    }

    private long nowSecond() {
        return Math.floorDiv(clock.millis(), 1000L);
    }

    private static int windowSeconds(Duration window) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero() || window.compareTo(Duration.ofSeconds(MAX_WINDOW_SECONDS)) > 0) {
            throw new IllegalArgumentException("LockStatistics keeps the last 15 minutes: a window must be longer"
                    + " than 0 and at most PT15M, got " + window);
        }
        long seconds = window.getSeconds() + (window.getNano() > 0 ? 1 : 0);
        return (int) seconds;
    }

    // ---------------------------------------------------------------- storage

    /** Counter positions in a one-second slot and in a group's one-minute slot. */
    private static final int ACQUIRED = 0;

    private static final int BUSY = 1;
    private static final int TIMED_OUT = 2;
    private static final int ERRORS = 3;
    private static final int WAITS = 4;
    private static final int SECOND_WIDTH = 5;
    /** A group's minute slot: the counters, then the wait histogram. */
    private static final int GROUP_HISTOGRAM = SECOND_WIDTH;

    private static final int GROUP_WIDTH = GROUP_HISTOGRAM + Buckets.COUNT;

    /** One store: 900 one-second counter slots, 60 one-second histogram slots, and its groups. */
    private static final class StoreStats {
        final String name;
        final Ring seconds = new Ring(MAX_WINDOW_SECONDS, SECOND_WIDTH);
        final Ring histograms = new Ring(60, Buckets.COUNT);
        final Map<String, GroupStats> groups = new ConcurrentHashMap<>();

        StoreStats(String name) {
            this.name = name;
        }

        GroupStats group(String group) {
            GroupStats found = groups.get(group);
            if (found != null) {
                return found;
            }
            if (groups.size() >= MAX_GROUPS) {
                group = OTHER;
            }
            return groups.computeIfAbsent(group, GroupStats::new);
        }
    }

    /** One group of one store: 16 one-minute slots of counters and a wait histogram. */
    private static final class GroupStats {
        final String name;
        final Ring minutes = new Ring(16, GROUP_WIDTH);

        GroupStats(String name) {
            this.name = name;
        }
    }

    /**
     * A ring of {@code slots} slots of {@code width} counters, one slot per period (a second, a minute); each slot
     * is stamped with the period it counts, and cleared when a later period takes it over.
     */
    private static final class Ring {
        private final int slots;
        private final int width;
        private final AtomicLongArray counters;
        private final AtomicLongArray stamps;

        Ring(int slots, int width) {
            this.slots = slots;
            this.width = width;
            this.counters = new AtomicLongArray(slots * width);
            this.stamps = new AtomicLongArray(slots);
            for (int i = 0; i < slots; i++) {
                stamps.set(i, Long.MIN_VALUE);
            }
        }

        void increment(long period, int counter) {
            int base = claim(period);
            if (base >= 0) {
                counters.getAndIncrement(base + counter);
            }
        }

        void increment(long period, int counter, int other) {
            int base = claim(period);
            if (base >= 0) {
                counters.getAndIncrement(base + counter);
                counters.getAndIncrement(base + other);
            }
        }

        /** @return the first counter index of the slot of {@code period}; -1 if the slot counts a later period */
        private int claim(long period) {
            int slot = (int) Math.floorMod(period, (long) slots);
            long stamp = stamps.get(slot);
            if (stamp == period) {
                return slot * width;
            }
            if (stamp > period) {
                return -1;
            }
            synchronized (this) {
                stamp = stamps.get(slot);
                if (stamp < period) {
                    for (int i = slot * width, end = i + width; i < end; i++) {
                        counters.set(i, 0);
                    }
                    // Published after the clearing: an increment that sees this stamp lands in the cleared slot.
                    stamps.set(slot, period);
                } else if (stamp > period) {
                    return -1;
                }
            }
            return slot * width;
        }

        /** Adds the counters of {@code period} to {@code sums}, if its slot still counts that period. */
        void addTo(long period, long[] sums) {
            int slot = (int) Math.floorMod(period, (long) slots);
            if (stamps.get(slot) != period) {
                return;
            }
            int base = slot * width;
            for (int i = 0; i < width; i++) {
                sums[i] += counters.get(base + i);
            }
        }
    }

    /** The fixed wait buckets: bucket {@code i} holds waits in {@code (BOUNDS[i-1], BOUNDS[i]]}. */
    static final class Buckets {
        private static final long MS = 1_000_000L;
        private static final long[] BOUNDS = {
            100_000L,
            200_000L,
            500_000L,
            1 * MS,
            1_500_000L,
            2 * MS,
            3 * MS,
            5 * MS,
            7 * MS,
            10 * MS,
            15 * MS,
            20 * MS,
            30 * MS,
            50 * MS,
            70 * MS,
            100 * MS,
            150 * MS,
            200 * MS,
            300 * MS,
            500 * MS,
            700 * MS,
            1_000 * MS,
            1_500 * MS,
            2_000 * MS,
            3_000 * MS,
            5_000 * MS,
            7_000 * MS,
            10_000 * MS,
            15_000 * MS,
            20_000 * MS,
            30_000 * MS,
            45_000 * MS,
            60_000 * MS
        };
        /** The bounded buckets and one for waits beyond the last bound. */
        static final int COUNT = BOUNDS.length + 1;

        private Buckets() {}

        static int index(long nanos) {
            int low = 0;
            int high = BOUNDS.length;
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (BOUNDS[middle] < nanos) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            return low;
        }

        /** @return the upper bound of the bucket holding the 99th percentile of {@code counts[from..from+COUNT)} */
        static Optional<Duration> p99(long[] counts, int from) {
            long total = 0;
            for (int i = 0; i < COUNT; i++) {
                total += counts[from + i];
            }
            if (total == 0) {
                return Optional.empty();
            }
            long rank = (total * 99 + 99) / 100;
            long seen = 0;
            for (int i = 0; i < COUNT; i++) {
                seen += counts[from + i];
                if (seen >= rank) {
                    return Optional.of(Duration.ofNanos(BOUNDS[Math.min(i, BOUNDS.length - 1)]));
                }
            }
            return Optional.of(Duration.ofNanos(BOUNDS[BOUNDS.length - 1]));
        }
    }

    private record WaitKey(String store, String name) {}

    /** One caller inside a wait. */
    private static final class Waiter {
        final Lock lock;
        final WaitKey key;
        final Instant since;

        Waiter(Lock lock, WaitKey key, Instant since) {
            this.lock = lock;
            this.key = key;
            this.since = since;
        }
    }

    /** The callers waiting for one lock; changed only inside the map's compute calls, read under its monitor. */
    private static final class Waiters {
        private final List<Waiter> list = new ArrayList<>(2);

        synchronized void add(Waiter waiter) {
            list.add(waiter);
        }

        /** @return whether none is left */
        synchronized boolean remove(Waiter waiter) {
            list.remove(waiter);
            return list.isEmpty();
        }

        synchronized Optional<Waiting> summary(Instant now) {
            if (list.isEmpty()) {
                return Optional.empty();
            }
            Instant earliest = list.get(0).since;
            for (Waiter waiter : list) {
                if (waiter.since.isBefore(earliest)) {
                    earliest = waiter.since;
                }
            }
            Duration longest = Duration.between(earliest, now);
            return Optional.of(new Waiting(list.size(), longest.isNegative() ? Duration.ZERO : longest));
        }
    }
}

package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockStatistics.ActivityPoint;
import dev.exclusive.LockStatistics.GroupContention;
import dev.exclusive.LockStatistics.StoreActivity;
import dev.exclusive.LockStatistics.Waiting;
import dev.exclusive.memory.MemoryLockStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the console's tiles and charts read: counts by second and by minute, p99 waits, the waiters of a lock. */
class LockStatisticsTest {

    /** 2026-12-01T03:00:00Z, the start of a second and of a minute. */
    private static final Instant START = Instant.parse("2026-12-01T03:00:00Z");

    /** A wall clock that stands still until the test moves it; safe to read and move from any thread. */
    static final class TestClock extends Clock {
        private final AtomicLong millis = new AtomicLong(START.toEpochMilli());

        void advance(Duration by) {
            millis.addAndGet(by.toMillis());
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("statistics read instants only");
        }
    }

    private final TestClock clock = new TestClock();
    private final LockStatistics statistics = new LockStatistics(clock);
    private final List<LockRegistry> registries = new ArrayList<>();

    private LockRegistry registry(String... stores) {
        LockRegistry.Builder builder = LockRegistry.builder().listener(statistics);
        for (String store : stores) {
            builder.store(store, new MemoryLockStore());
        }
        LockRegistry registry = builder.build();
        registries.add(registry);
        return registry;
    }

    @AfterEach
    void closeRegistries() {
        registries.forEach(LockRegistry::close);
    }

    @Test
    void countsEachOutcomeOfTheLastMinutePerStore() {
        FaultyStore faulty = new FaultyStore(new MemoryLockStore());
        LockRegistry registry = LockRegistry.builder()
                .store("orders", new MemoryLockStore())
                .store("files", faulty)
                .listener(statistics)
                .build();
        registries.add(registry);
        Lock holder = registry.lock("purchase:product:1", 60);
        assertTrue(holder.get());
        assertFalse(registry.lock("purchase:product:1", 60).get());
        assertFalse(registry.lock("purchase:product:1", 60).get());
        assertFalse(registry.lock("purchase:product:1", 60).block(Duration.ZERO));
        assertFalse(registry.lock("purchase:product:1", 60).block(Duration.ofMillis(5)));
        assertTrue(registry.lock("purchase:product:2", 60).get());
        faulty.acquireFails = true;
        LockRegistry files = registry.store("files");
        assertThrows(
                LockStoreUnavailableException.class,
                () -> files.lock("import", 60).get());

        assertEquals(List.of("files", "orders"), statistics.stores());
        StoreActivity orders = statistics.lastMinute("orders");
        assertEquals("orders", orders.store());
        assertEquals(2, orders.acquisitions());
        assertEquals(3, orders.busy());
        assertEquals(1, orders.timeouts());
        assertEquals(0, orders.errors());
        assertEquals(2 / 60.0, orders.acquisitionsPerSecond(), 1e-12);
        assertEquals(4 / 60.0, orders.busyPerSecond(), 1e-12, "busy answers and the timed-out wait");
        assertTrue(orders.p99Wait().isPresent());
        StoreActivity errors = statistics.lastMinute("files");
        assertEquals(new StoreActivity("files", 0, 0, 0, 1, 0.0, 0.0, Optional.empty()), errors);
    }

    @Test
    void aStoreNothingWasHeardFromHasAnEmptyMinute() {
        assertEquals(
                new StoreActivity("nowhere", 0, 0, 0, 0, 0.0, 0.0, Optional.empty()), statistics.lastMinute("nowhere"));
        assertEquals(List.of(), statistics.stores());
    }

    @Test
    void theLastMinuteIsTheSixtySecondsUpToTheCurrentOne() {
        LockRegistry registry = registry("m");
        assertTrue(registry.lock("a", 60).get());
        clock.advance(Duration.ofSeconds(59));
        assertTrue(registry.lock("b", 60).get());
        assertEquals(2, statistics.lastMinute("m").acquisitions());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(1, statistics.lastMinute("m").acquisitions(), "the first one is 60 s old");
        clock.advance(Duration.ofSeconds(59));
        assertEquals(0, statistics.lastMinute("m").acquisitions());
        assertEquals(Optional.empty(), statistics.lastMinute("m").p99Wait());
    }

    @Test
    void perSecondHasOnePointPerSecondOldestFirstWithZeroPointsAndAllStoresSummed() {
        LockRegistry registry = registry("a", "b");
        Lock held = registry.lock("x", 60);
        assertTrue(held.get());
        assertFalse(registry.lock("x", 60).get());
        clock.advance(Duration.ofMillis(2_500));
        assertTrue(registry.store("b").lock("x", 60).get());
        assertTrue(registry.store("b").lock("y", 60).get());
        assertFalse(registry.lock("x", 60).block(Duration.ofMillis(2)));

        Instant now = START.plusSeconds(2);
        assertEquals(
                List.of(
                        new ActivityPoint(now.minusSeconds(4), 0, 0, 0),
                        new ActivityPoint(now.minusSeconds(3), 0, 0, 0),
                        new ActivityPoint(now.minusSeconds(2), 1, 1, 0),
                        new ActivityPoint(now.minusSeconds(1), 0, 0, 0),
                        new ActivityPoint(now, 2, 1, 1)),
                statistics.perSecond(Duration.ofSeconds(5)));
        assertEquals(3, statistics.perSecond(Duration.ofMillis(2_001)).size(), "a part second counts as one");
        assertEquals(900, statistics.perSecond(Duration.ofMinutes(15)).size());
    }

    @Test
    void perSecondRollsOverAfterFifteenMinutes() {
        LockRegistry registry = registry("m");
        assertTrue(registry.lock("a", 60).get());
        clock.advance(Duration.ofSeconds(899));
        List<ActivityPoint> lastOfIt = statistics.perSecond(Duration.ofMinutes(15));
        assertEquals(new ActivityPoint(START, 1, 0, 0), lastOfIt.get(0));
        assertEquals(1, lastOfIt.stream().mapToLong(ActivityPoint::acquisitions).sum());

        clock.advance(Duration.ofSeconds(1));
        List<ActivityPoint> after = statistics.perSecond(Duration.ofMinutes(15));
        assertEquals(START.plusSeconds(1), after.get(0).second());
        assertEquals(0, after.stream().mapToLong(ActivityPoint::acquisitions).sum());

        assertTrue(registry.lock("b", 60).get(), "the second that reuses the first one's slot");
        after = statistics.perSecond(Duration.ofMinutes(15));
        assertEquals(new ActivityPoint(START.plusSeconds(900), 1, 0, 0), after.get(899));
        assertEquals(1, after.stream().mapToLong(ActivityPoint::acquisitions).sum(), "the old count was cleared");
    }

    @Test
    void aWindowMustBePositiveAndAtMostFifteenMinutes() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofSeconds(901))) {
            IllegalArgumentException perSecond =
                    assertThrows(IllegalArgumentException.class, () -> statistics.perSecond(bad));
            assertTrue(perSecond.getMessage().contains(bad.toString()), perSecond.getMessage());
            assertThrows(IllegalArgumentException.class, () -> statistics.mostContended(10, bad));
        }
        assertThrows(IllegalArgumentException.class, () -> statistics.mostContended(-1, Duration.ofMinutes(1)));
        assertThrows(NullPointerException.class, () -> statistics.perSecond(null));
    }

    @Test
    void p99IsTheBucketBoundOfTheNinetyNinthPercentileOfAcquiredAndTimedOutWaits() {
        Lock lock = registry("m").lock("imports:users", 60);
        for (int i = 0; i < 99; i++) {
            statistics.acquired(lock, Duration.ofMillis(2));
        }
        statistics.timedOut(lock, Duration.ofSeconds(3));
        statistics.busy(lock, Duration.ofSeconds(50));
        assertEquals(
                Optional.of(Duration.ofMillis(2)), statistics.lastMinute("m").p99Wait(), "99 of 100 at 2 ms");

        statistics.timedOut(lock, Duration.ofMillis(2_600));
        assertEquals(
                Optional.of(Duration.ofSeconds(3)),
                statistics.lastMinute("m").p99Wait(),
                "the 100th of 101 is 2.6 s, in the bucket up to 3 s");
        assertEquals(
                Optional.of(Duration.ofSeconds(3)),
                statistics.mostContended(1, Duration.ofMinutes(1)).get(0).p99Wait());
    }

    @Test
    void p99BucketsRunFromATenthOfAMillisecondToAMinute() {
        Lock lock = registry("m").lock("x", 60);
        statistics.acquired(lock, Duration.ofNanos(1));
        assertEquals(
                Optional.of(Duration.ofNanos(100_000)),
                statistics.lastMinute("m").p99Wait());
        statistics.acquired(lock, Duration.ofMillis(1_001));
        assertEquals(
                Optional.of(Duration.ofMillis(1_500)),
                statistics.lastMinute("m").p99Wait());
        statistics.acquired(lock, Duration.ofMinutes(5));
        assertEquals(
                Optional.of(Duration.ofSeconds(60)), statistics.lastMinute("m").p99Wait(), "beyond: 60 s");
    }

    @Test
    void mostContendedRanksGroupsByBusyTimeoutsAndWaits() {
        LockRegistry registry = registry("m", "n");
        Lock purchase = registry.lock("purchase:product:1", 60);
        Lock export = registry.lock("export-42", 60).group("export-{id}");
        Lock quiet = registry.store("n").lock("report:daily", 60);
        for (int i = 0; i < 5; i++) {
            statistics.busy(purchase, Duration.ZERO);
        }
        statistics.waiting(purchase);
        statistics.acquired(purchase, Duration.ofMillis(3));
        statistics.waiting(export);
        statistics.timedOut(export, Duration.ofSeconds(1));
        statistics.busy(export, Duration.ZERO);
        statistics.busy(export, Duration.ZERO);
        statistics.acquired(quiet, Duration.ofMillis(1));

        List<GroupContention> top = statistics.mostContended(10, Duration.ofMinutes(15));
        assertEquals(
                List.of(
                        new GroupContention("m", "purchase:*", 6, 1, Optional.of(Duration.ofMillis(3))),
                        new GroupContention("m", "export-{id}", 4, 0, Optional.of(Duration.ofSeconds(1))),
                        new GroupContention("n", "report:*", 0, 1, Optional.of(Duration.ofMillis(1)))),
                top);
        assertEquals(top.subList(0, 2), statistics.mostContended(2, Duration.ofMinutes(15)));
        assertEquals(List.of(), statistics.mostContended(0, Duration.ofMinutes(15)));
    }

    @Test
    void mostContendedCountsTheWholeMinutesThatOverlapTheWindow() {
        Lock lock = registry("m").lock("purchase:1", 60);
        clock.advance(Duration.ofSeconds(30));
        statistics.busy(lock, Duration.ZERO);
        clock.advance(Duration.ofMinutes(10));
        statistics.busy(lock, Duration.ZERO);
        statistics.busy(lock, Duration.ZERO);
        clock.advance(Duration.ofSeconds(20));

        assertEquals(
                2, statistics.mostContended(1, Duration.ofMinutes(5)).get(0).contended());
        assertEquals(
                2, statistics.mostContended(1, Duration.ofSeconds(1)).get(0).contended(), "this minute");
        assertEquals(
                3, statistics.mostContended(1, Duration.ofMinutes(15)).get(0).contended());

        clock.advance(Duration.ofSeconds(310));
        assertEquals(
                2,
                statistics.mostContended(1, Duration.ofMinutes(15)).get(0).contended(),
                "the first minute is past the window");
        clock.advance(Duration.ofMinutes(16));
        assertEquals(List.of(), statistics.mostContended(1, Duration.ofMinutes(15)));
    }

    @Test
    void groupsPastTwoHundredPerStoreAreCountedUnderOther() {
        LockRegistry registry = registry("m");
        for (int i = 0; i < LockStatistics.MAX_GROUPS + 5; i++) {
            Lock lock = registry.lock("job-" + i, 60).group("job-" + i);
            statistics.busy(lock, Duration.ZERO);
            statistics.busy(lock, Duration.ZERO);
        }
        List<GroupContention> all = statistics.mostContended(1_000, Duration.ofMinutes(15));
        assertEquals(LockStatistics.MAX_GROUPS + 1, all.size());
        assertEquals(new GroupContention("m", LockStatistics.OTHER, 10, 0, Optional.empty()), all.get(0));
        assertEquals(
                2 * (LockStatistics.MAX_GROUPS + 5),
                all.stream().mapToLong(GroupContention::contended).sum());
        assertEquals(
                2 * (LockStatistics.MAX_GROUPS + 5), statistics.lastMinute("m").busy());
    }

    @Test
    void storesPastTwoHundredAreCountedUnderOther() {
        String[] names = IntStream.range(0, LockStatistics.MAX_STORES + 3)
                .mapToObj(i -> String.format("s%03d", i))
                .toArray(String[]::new);
        LockRegistry registry = registry(names);
        for (String name : names) {
            assertTrue(registry.store(name).lock("x", 60).get());
        }
        List<String> stores = statistics.stores();
        assertEquals(LockStatistics.MAX_STORES + 1, stores.size());
        assertEquals(LockStatistics.OTHER, stores.get(0));
        assertEquals(3, statistics.lastMinute(LockStatistics.OTHER).acquisitions());
        assertEquals(1, statistics.lastMinute("s000").acquisitions());
    }

    @Test
    void waitingOnCountsTheCallersInsideAWaitAndTheLongestWait() throws Exception {
        Semaphore waitsStarted = new Semaphore(0);
        LockRegistry registry = LockRegistry.builder()
                .store("m", new MemoryLockStore(), "shop:")
                .listener(statistics)
                .listener(new LockListener() {
                    @Override
                    public void waiting(Lock lock) {
                        waitsStarted.release();
                    }
                })
                .build();
        registries.add(registry);
        Lock holder = registry.lock("imports:users", 60);
        assertTrue(holder.get());
        assertEquals(Optional.empty(), statistics.waitingOn("m", "shop:imports:users"));

        List<Thread> waiters = new ArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        Runnable waitThenHold = () -> {
            try {
                registry.lock("imports:users", 60)
                        .block(Duration.ofSeconds(30), () -> assertTrue(release.await(30, TimeUnit.SECONDS)));
            } catch (LockInterruptedException expected) {
                // the waiter the test interrupts
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        waiters.add(new Thread(waitThenHold));
        waiters.get(0).start();
        assertTrue(waitsStarted.tryAcquire(10, TimeUnit.SECONDS));
        clock.advance(Duration.ofSeconds(5));
        for (int i = 1; i < 3; i++) {
            waiters.add(new Thread(waitThenHold));
            waiters.get(i).start();
        }
        assertTrue(waitsStarted.tryAcquire(2, 10, TimeUnit.SECONDS));
        assertEquals(
                Optional.of(new Waiting(3, Duration.ofSeconds(5))), statistics.waitingOn("m", "shop:imports:users"));
        clock.advance(Duration.ofSeconds(1));
        assertEquals(
                Optional.of(new Waiting(3, Duration.ofSeconds(6))), statistics.waitingOn("m", "shop:imports:users"));
        assertEquals(Optional.empty(), statistics.waitingOn("m", "imports:users"), "the full name, prefix included");
        assertEquals(Optional.empty(), statistics.waitingOn("other", "shop:imports:users"));

        Thread interrupted = waiters.remove(2);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertFalse(interrupted.isAlive());
        assertEquals(
                Optional.of(new Waiting(2, Duration.ofSeconds(6))), statistics.waitingOn("m", "shop:imports:users"));

        release.countDown();
        assertTrue(holder.release());
        for (Thread waiter : waiters) {
            waiter.join(10_000);
            assertFalse(waiter.isAlive());
        }
        assertEquals(Optional.empty(), statistics.waitingOn("m", "shop:imports:users"));
        assertEquals(3, statistics.lastMinute("m").acquisitions(), "the holder and both remaining waiters");
        assertEquals(
                3,
                statistics.perSecond(Duration.ofSeconds(10)).stream()
                        .mapToLong(ActivityPoint::waits)
                        .sum());
    }

    @Test
    void aWaitThatRunsOutOrFailsIsNoLongerWaitingOn() {
        FaultyStore faulty = new FaultyStore(new MemoryLockStore());
        faulty.waitCap = Duration.ofMillis(1);
        LockRegistry registry =
                LockRegistry.builder().store("f", faulty).listener(statistics).build();
        registries.add(registry);
        assertTrue(registry.lock("x", 60).get());
        assertFalse(registry.lock("x", 60).block(Duration.ofMillis(3)));
        assertEquals(Optional.empty(), statistics.waitingOn("f", "x"));
        Lock failing = registry.lock("x", 60);
        statistics.waiting(failing);
        assertEquals(1, statistics.waitingOn("f", "x").orElseThrow().callers());
        statistics.failed(
                failing,
                LockListener.Operation.ACQUIRE,
                Duration.ofMillis(1),
                new LockStoreUnavailableException("down", "x", "f", null));
        assertEquals(Optional.empty(), statistics.waitingOn("f", "x"));
        assertEquals(1, statistics.lastMinute("f").errors());
    }

    @Test
    void manyThreadsOnManyNamesGiveExactTotalsWhileTheSecondsRollOver() throws Exception {
        int threads = 8;
        int rounds = 3_000;
        int names = 40;
        AtomicLong waitingHeard = new AtomicLong();
        LockRegistry registry = LockRegistry.builder()
                .store("m", new MemoryLockStore())
                .listener(statistics)
                .listener(new LockListener() {
                    @Override
                    public void waiting(Lock lock) {
                        waitingHeard.incrementAndGet();
                    }
                })
                .build();
        registries.add(registry);
        AtomicLong acquired = new AtomicLong();
        AtomicLong busy = new AtomicLong();
        AtomicLong timedOut = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int worker = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        if (worker == 0 && i % 100 == 0) {
                            clock.advance(Duration.ofSeconds(1));
                        }
                        Lock lock = registry.lock("group" + (i % 4) + ":" + ((i * 7 + worker) % names), 60);
                        boolean got = i % 10 == 0 ? lock.block(Duration.ofNanos(200_000)) : lock.get();
                        if (got) {
                            acquired.incrementAndGet();
                            lock.release();
                        } else if (i % 10 == 0) {
                            timedOut.incrementAndGet();
                        } else {
                            busy.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            workers.add(thread);
            thread.start();
        }
        for (Thread worker : workers) {
            worker.join(60_000);
            assertFalse(worker.isAlive());
        }
        assertEquals(List.of(), failures);
        assertEquals((long) threads * rounds, acquired.get() + busy.get() + timedOut.get());

        StoreActivity minute = statistics.lastMinute("m");
        assertEquals(acquired.get(), minute.acquisitions());
        assertEquals(busy.get(), minute.busy());
        assertEquals(timedOut.get(), minute.timeouts());
        List<ActivityPoint> seconds = statistics.perSecond(Duration.ofMinutes(1));
        assertTrue(seconds.stream().filter(p -> p.acquisitions() > 0).count() >= 2, "spread over seconds");
        assertEquals(
                acquired.get(),
                seconds.stream().mapToLong(ActivityPoint::acquisitions).sum());
        assertEquals(
                busy.get() + timedOut.get(),
                seconds.stream().mapToLong(ActivityPoint::busy).sum());
        assertEquals(
                waitingHeard.get(),
                seconds.stream().mapToLong(ActivityPoint::waits).sum());
        List<GroupContention> groups = statistics.mostContended(10, Duration.ofMinutes(15));
        assertEquals(4, groups.size());
        assertEquals(
                acquired.get(),
                groups.stream().mapToLong(GroupContention::acquisitions).sum());
        assertEquals(
                busy.get() + timedOut.get() + waitingHeard.get(),
                groups.stream().mapToLong(GroupContention::contended).sum());
        assertEquals(Optional.empty(), statistics.waitingOn("m", "group0:0"));
    }
}

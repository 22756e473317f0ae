package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 200 threads on a pool of 16 connections, each reply 40 ms late (a {@link FaultyProxy} in front of the shared
 * Redis): far more callers than connections, so most wait for one and many wait longer than the store allows.
 * Every call still answers within the store's bound (connect timeout + socket timeout for the call, plus one
 * socket timeout waiting for a connection): acquired, busy, or {@link LockStoreUnavailableException}; none hangs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisPoolExhaustionTest {

    private static final int THREADS = 200;
    private static final int POOL = 16;
    /** Ten threads per name: some attempts acquire, more are busy. */
    private static final int NAMES = THREADS / 10;

    private static final int CALLS_PER_THREAD = 4;
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(300);
    private static final Duration SOCKET_TIMEOUT = Duration.ofMillis(300);
    /** What the store promises, plus 1 s for a machine of 2 cores running 200 threads and other builds. */
    private static final long BOUND_MILLIS = CONNECT_TIMEOUT.toMillis() + 2 * SOCKET_TIMEOUT.toMillis() + 1_000;

    private static final LockHolder HOLDER = new LockHolder("pool-test", "main", "");

    private static FaultyProxy proxy;

    @BeforeAll
    static void slowLinkToTheSharedRedis() throws IOException {
        RedisServers.requireSharedRedis();
        proxy = FaultyProxy.start(RedisServers.SHARED_PORT);
        proxy.delayReplies(Duration.ofMillis(40));
    }

    @AfterAll
    static void stopProxy() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
    }

    @RepeatedTest(3) // a fresh store each time: its clock is unread, so its first acquisitions also ask for TIME
    void everyCallOfTwoHundredThreadsOnSixteenConnectionsAnswersWithinTheTimeouts() throws InterruptedException {
        String prefix = RedisServers.uniquePrefix("pool");
        Tally tally = new Tally();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(THREADS);
        try (RedisLockStore store = RedisLockStore.builder()
                .url(URI.create("redis://" + RedisServers.HOST + ":" + proxy.port()))
                .storeName("pool")
                .poolSize(POOL)
                .connectTimeout(CONNECT_TIMEOUT)
                .socketTimeout(SOCKET_TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build()) {
            for (int i = 0; i < THREADS; i++) {
                int t = i;
                String name = prefix + (t % NAMES);
                Thread thread = new Thread(
                        () -> {
                            try {
                                start.await();
                                callRepeatedly(store, name, "owner-" + t, tally);
                            } catch (Throwable e) {
                                tally.unexpected.add(e);
                            } finally {
                                done.countDown();
                            }
                        },
                        "pool-caller-" + t);
                thread.setDaemon(true);
                thread.start();
            }
            start.countDown();
            boolean allAnswered = done.await(CALLS_PER_THREAD * BOUND_MILLIS * 2 + 10_000, TimeUnit.MILLISECONDS);
            assertTrue(allAnswered, "every thread finished; still running: " + done.getCount());
        }
        assertTrue(tally.unexpected.isEmpty(), "only acquired, busy or unavailable: " + tally.unexpected);
        try (RedisLockStore direct = RedisServers.sharedStore("pool-check")) {
            tally.unreleased.forEach((name, owner) -> direct.release(name, owner)); // their release was refused
            List<String> stillHeld = java.util.stream.IntStream.range(0, NAMES)
                    .mapToObj(i -> prefix + i)
                    .filter(name -> direct.inspect(name).isPresent())
                    .toList();
            assertTrue(
                    stillHeld.isEmpty(),
                    "every lock taken was released: an acquisition reported unavailable must not have taken it "
                            + "(else it stays locked for its ttl with no holder); still held: " + stillHeld);
        }
        assertTrue(
                tally.slowest.get() <= BOUND_MILLIS,
                "the slowest call took " + tally.slowest.get() + " ms; bound " + BOUND_MILLIS + " ms");
        assertTrue(tally.acquired.get() > 0, "some calls got through: " + tally.acquired);
        assertTrue(
                tally.unavailable.get() > 0,
                "the pool really ran out (else this test proves nothing): acquired " + tally.acquired + ", busy "
                        + tally.busy);
    }

    @Test
    void anAcquisitionRedisGrantedIsNotReportedUnavailableWhenTheClockReadingAfterItFails() {
        String name = RedisServers.uniquePrefix("pool-clock") + "lock";
        try (RedisLockStore warm = RedisServers.sharedStore("pool-warm")) {
            // loads the scripts into Redis, so that the store below sends EVALSHA, whose bytes never say TIME
            warm.forceRelease(name);
            warm.tryAcquire(name + ":warm", "warm", HOLDER, Duration.ofSeconds(1));
        }
        proxy.loseRepliesAfter("TIME"); // a new store's first acquisition reads the Redis clock once after it
        try (RedisLockStore store = RedisLockStore.builder()
                        .url(URI.create("redis://" + RedisServers.HOST + ":" + proxy.port()))
                        .storeName("pool-clock")
                        .connectTimeout(CONNECT_TIMEOUT)
                        .socketTimeout(SOCKET_TIMEOUT)
                        .fenceRetention(Duration.ofMinutes(5))
                        .build();
                RedisLockStore direct = RedisServers.sharedStore("pool-clock-check")) {
            Acquisition taken = store.tryAcquire(name, "owner", HOLDER, Duration.ofSeconds(30));
            assertEquals(1, proxy.lostReplies(), "the TIME reply was lost");
            assertTrue(taken.acquired(), "Redis granted it, and the caller is told so: " + taken);
            assertTrue(direct.inspect(name).isPresent());
            assertTrue(store.release(name, "owner"), "the caller holds it and frees it");
        }
    }

    /** Acquires and releases {@code name} a few times, tallying every answer and the slowest call. */
    private static void callRepeatedly(RedisLockStore store, String name, String owner, Tally tally) {
        for (int i = 0; i < CALLS_PER_THREAD; i++) {
            long began = System.nanoTime();
            boolean taken;
            try {
                taken = store.tryAcquire(name, owner, HOLDER, Duration.ofSeconds(30))
                        .acquired();
                (taken ? tally.acquired : tally.busy).incrementAndGet();
            } catch (LockStoreUnavailableException e) {
                tally.unavailable.incrementAndGet();
                taken = false;
            }
            tally.slowest.accumulateAndGet(millisSince(began), Math::max);
            if (taken) {
                began = System.nanoTime();
                try {
                    store.release(name, owner);
                } catch (LockStoreUnavailableException e) {
                    tally.unavailable.incrementAndGet();
                    tally.unreleased.put(name, owner);
                }
                tally.slowest.accumulateAndGet(millisSince(began), Math::max);
            }
        }
    }

    /** What the callers saw. */
    private static final class Tally {
        final AtomicInteger acquired = new AtomicInteger();
        final AtomicInteger busy = new AtomicInteger();
        final AtomicInteger unavailable = new AtomicInteger();
        final AtomicLong slowest = new AtomicLong();
        final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
        /** Locks whose release failed as unavailable, by name: still held, legitimately. */
        final Map<String, String> unreleased = new ConcurrentHashMap<>();
    }

    private static long millisSince(long began) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A link to Redis that stops answering without closing (a {@link FaultyProxy} that stops forwarding, every socket
 * left open: what a half-open TCP connection looks like to a client). Lock calls fail with
 * {@link LockStoreUnavailableException} within the timeouts, and the release subscriber, which only reads and
 * would otherwise wait forever, notices through its watchdog and subscribes again on a new connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisSilentNetworkTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final LockHolder HOLDER = new LockHolder("silent-test", "main", "");

    private FaultyProxy proxy;
    private RedisLockStore store;
    private RedisLockStore holderStore;

    @BeforeEach
    void storeBehindAProxy() throws IOException {
        RedisServers.requireSharedRedis();
        proxy = FaultyProxy.start(RedisServers.SHARED_PORT);
        store = RedisLockStore.builder()
                .url(URI.create("redis://" + RedisServers.HOST + ":" + proxy.port()))
                .storeName("silent")
                .connectTimeout(TIMEOUT)
                .socketTimeout(TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
        holderStore = RedisServers.sharedStore("silent-holder");
    }

    @AfterEach
    void close() throws IOException {
        if (store != null) {
            store.close();
        }
        if (holderStore != null) {
            holderStore.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void theSubscriberNoticesASilentLinkAndSubscribesAgainWhileCallsFailWithinTheTimeouts() throws Exception {
        String name = RedisServers.uniquePrefix("silent") + "held";
        holderStore.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(30));
        AtomicBoolean waiting = new AtomicBoolean(true);
        Thread waiter = RedisServers.waitWhile(waiting, store, name);
        try {
            assertTrue(store.subscriber().awaitListening(10, TimeUnit.SECONDS), "subscribed through the proxy");

            proxy.stall();
            long stalled = System.nanoTime();
            long began = System.nanoTime();
            assertThrows(
                    LockStoreUnavailableException.class,
                    () -> store.tryAcquire(name + ":other", "me", HOLDER, Duration.ofSeconds(5)));
            long failedAfter = millisSince(began);
            assertTrue(
                    failedAfter <= 2 * TIMEOUT.toMillis() + 1_000,
                    "a call on the silent link failed within the timeouts: " + failedAfter + " ms");

            // the watchdog: a probe after 1 s of silence, given up 2 s later, at a waiter's check (at most 1 s apart)
            long bound = ReleaseSubscriber.PROBE_AFTER_MILLIS + ReleaseSubscriber.SILENCE_LIMIT_MILLIS + 3_000;
            RedisServers.awaitTrue(
                    () -> !store.subscriber().listening(),
                    Duration.ofMillis(bound),
                    "the subscriber to notice the silent link");
            long noticedAfter = millisSince(stalled);

            proxy.resume();
            assertTrue(
                    store.subscriber().awaitListening(10, TimeUnit.SECONDS),
                    "subscribed again once the network answers (noticed after " + noticedAfter + " ms)");
        } finally {
            waiting.set(false);
            waiter.join(5_000);
            holderStore.forceRelease(name);
        }
    }

    private static long millisSince(long began) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    }
}

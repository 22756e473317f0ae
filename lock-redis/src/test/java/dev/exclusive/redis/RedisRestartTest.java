package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** A throwaway Redis on port 7110 goes away mid-test and comes back: the same store fails fast, then recovers. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisRestartTest {

    private static final int PORT = 7110;
    private static final LockHolder HOLDER = new LockHolder("restart-test", "main", "");

    @TempDir
    Path folder;

    private RedisLockStore store;
    private RedisLockStore peer;

    @BeforeEach
    void startRedis() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        RedisServers.start(PORT, folder);
        store = newStore();
        peer = newStore();
    }

    @AfterEach
    void stopRedis() throws IOException, InterruptedException {
        if (store != null) {
            store.close();
            peer.close();
        }
        RedisServers.stop(PORT);
    }

    @Test
    void callsFailFastWhileRedisIsDownAndTheSameStoreRecovers() throws Exception {
        assertTrue(
                store.tryAcquire("before", "a", HOLDER, Duration.ofSeconds(30)).acquired());
        assertWaiterWokenByRelease();

        RedisServers.stop(PORT);
        assertFailsFast(() -> store.tryAcquire("during", "a", HOLDER, Duration.ofSeconds(30)));
        assertFailsFast(() -> store.release("before", "a"));
        assertFailsFast(() -> store.extend("before", "a", Duration.ofSeconds(30)));
        assertFailsFast(() -> store.forceRelease("before"));
        assertFailsFast(() -> store.inspect("before"));
        assertFailsFast(() -> store.list("", 10));
        assertFailsFast(store::ping);
        try (LockRegistry registry =
                LockRegistry.builder().store("restart", peer).build()) {
            Lock lock = registry.lock("during", Duration.ofSeconds(30));
            assertFailsFast(lock::get);
            assertFailsFast(() -> lock.block(Duration.ofSeconds(30)));
        }
        peer = newStore(); // the registry closed the old one
        long start = System.nanoTime();
        store.awaitRelease("during", Duration.ofMillis(300));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5_000, "waiting does not hang");

        RedisServers.start(PORT, folder);
        try (Jedis jedis = new Jedis(RedisServers.HOST, PORT)) {
            assertFalse(jedis.scriptExists(RedisScript.ACQUIRE.sha()), "a restarted Redis has forgotten the scripts");
        }
        Acquisition after = store.tryAcquire("before", "b", HOLDER, Duration.ofSeconds(30));
        assertTrue(
                after.acquired(),
                "the lock held before the restart is gone (no persistence) and the store " + "reloads its script");
        assertTrue(store.release("before", "b"));
        assertWaiterWokenByRelease();
    }

    /**
     * When Redis goes away under the subscriber, its warning names what happened to the link. It said "Could not
     * return the broken resource to the pool": returning the dropped connection failed as well, and that failure
     * replaced the one that ended the subscription.
     */
    @Test
    void theSubscribersWarningNamesTheLostLinkNotTheConnectionsReturn() throws Exception {
        List<String> warnings;
        try (SubscriberWarnings recorded = SubscriberWarnings.record()) {
            store.subscriber().start();
            assertTrue(store.subscriber().awaitListening(20, TimeUnit.SECONDS), "the subscriber listens");
            RedisServers.stop(PORT);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (recorded.messages().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            warnings = recorded.messages();
        }
        assertFalse(warnings.isEmpty(), "the subscriber warned that its subscription is down");
        String first = warnings.get(0);
        assertTrue(first.contains("the release subscription is down"), first);
        assertFalse(first.contains("Could not return the broken resource"), first);
        assertTrue(first.contains("JedisConnectionException"), first);
    }

    /** A waiter blocked in awaitRelease returns on a release by another store: pub/sub, not a timeout. */
    private void assertWaiterWokenByRelease() throws Exception {
        assertTrue(peer.tryAcquire("handoff", "holder", HOLDER, Duration.ofSeconds(60))
                .acquired());
        store.subscriber().start();
        assertTrue(store.subscriber().awaitListening(20, TimeUnit.SECONDS), "the subscriber (re)connects");
        CompletableFuture<Long> woken = CompletableFuture.supplyAsync(() -> {
            try {
                store.awaitRelease("handoff", Duration.ofSeconds(30));
                return System.nanoTime();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300); // let the waiter block; a lost race only makes it return early, failing below
        assertFalse(woken.isDone(), "the waiter blocks while the lock is held");
        long released = System.nanoTime();
        assertTrue(peer.release("handoff", "holder"));
        long wokenAfter = TimeUnit.NANOSECONDS.toMillis(woken.get(30, TimeUnit.SECONDS) - released);
        assertTrue(wokenAfter < 5_000, "woken " + wokenAfter + " ms after the release, long before its 30 s wait");
    }

    private static void assertFailsFast(Executable call) {
        long start = System.nanoTime();
        LockStoreUnavailableException e = assertThrows(LockStoreUnavailableException.class, call);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 5_000, "failed after " + millis + " ms");
        assertTrue(
                e.getMessage().contains("127.0.0.1:" + PORT) || e.getMessage().contains("restart"), e.getMessage());
    }

    private static RedisLockStore newStore() {
        return RedisLockStore.builder()
                .url(URI.create("redis://" + RedisServers.HOST + ":" + PORT))
                .storeName("restart")
                .connectTimeout(Duration.ofSeconds(1))
                .socketTimeout(Duration.ofSeconds(1))
                .build();
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Who is told of a release: a waiter of another store instance (another JVM) through a message on the shared
 * Redis, a waiter of the releasing instance directly, and nobody when nobody waits. Observed with a real
 * subscription on the shared Redis.
 */
class RedisWakeUpTest {

    private static final LockHolder HOLDER = new LockHolder("wake-up-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);

    private final BlockingQueue<String> published = new LinkedBlockingQueue<>();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private String prefix;
    private RedisLockStore store;
    private RedisLockStore peer;
    private Thread listening;
    private JedisPubSub listener;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @BeforeEach
    void subscribe() throws InterruptedException {
        prefix = RedisServers.uniquePrefix("wake");
        store = RedisServers.sharedStore("here");
        peer = RedisServers.sharedStore("there");
        CountDownLatch subscribed = new CountDownLatch(1);
        listener = new JedisPubSub() {
            @Override
            public void onSubscribe(String channel, int subscribedChannels) {
                subscribed.countDown();
            }

            @Override
            public void onMessage(String channel, String message) {
                String name = RedisKeys.nameOf(message);
                if (name != null && name.startsWith(prefix)) { // the shared Redis carries other tests' releases
                    published.add(name);
                }
            }
        };
        listening = new Thread(() -> {
            try (Jedis jedis = new Jedis(RedisServers.HOST, RedisServers.SHARED_PORT)) {
                jedis.subscribe(listener, RedisKeys.RELEASED_CHANNEL);
            }
        });
        listening.start();
        assertTrue(subscribed.await(10, TimeUnit.SECONDS), "subscribed");
    }

    @AfterEach
    void close() throws InterruptedException {
        listener.unsubscribe();
        listening.join(10_000);
        executor.shutdownNow();
        store.close();
        peer.close();
    }

    @Test
    void aReleaseNobodyWaitsForPublishesNothing() throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            assertTrue(store.tryAcquire(prefix + "alone", "alice", HOLDER, TTL).acquired());
            assertTrue(store.release(prefix + "alone", "alice"));
        }
        assertTrue(store.tryAcquire(prefix + "forced", "alice", HOLDER, TTL).acquired());
        assertTrue(store.forceRelease(prefix + "forced"));
        // a marker released with a waiter of another instance on it: messages arrive in order, so once it is
        // here every earlier one would be too
        assertTrue(store.tryAcquire(prefix + "marker", "alice", HOLDER, TTL).acquired());
        assertTrue(RedisReplies.yes(RedisScript.WAIT.run(
                peer.client(), List.of(RedisKeys.lockKey(prefix + "marker")), List.of("another-instance"))));
        assertTrue(store.release(prefix + "marker", "alice"));
        assertEquals(prefix + "marker", published.poll(10, TimeUnit.SECONDS));
        assertNull(published.poll(), "nothing else was published: " + published);
    }

    @Test
    void aWaiterOfTheReleasingInstanceIsWokenWithoutAMessage() throws Exception {
        LockRegistry registry = LockRegistry.builder().store("here", store).build();
        Lock holder = registry.lock(prefix + "local", TTL);
        assertTrue(holder.get());
        Future<Long> waiter = executor.submit(() -> {
            assertTrue(registry.lock(prefix + "local", TTL).block(Duration.ofSeconds(20)));
            return System.nanoTime();
        });
        awaitWaiterRecorded(prefix + "local");
        long released = System.nanoTime();
        assertTrue(holder.release());
        long handoff = TimeUnit.NANOSECONDS.toMillis(waiter.get(10, TimeUnit.SECONDS) - released);
        assertTrue(handoff < 120, "woken " + handoff + " ms after the release: far less than a re-check");
        assertNull(published.poll(200, TimeUnit.MILLISECONDS), "the waiter was signalled in this JVM");
    }

    @Test
    void aWaiterOfAnotherInstanceIsWokenPromptlyByTheMessage() throws Exception {
        LockRegistry here = LockRegistry.builder().store("here", store).build();
        LockRegistry there = LockRegistry.builder().store("there", peer).build();
        Lock holder = here.lock(prefix + "remote", TTL);
        assertTrue(holder.get());
        Future<Long> waiter = executor.submit(() -> {
            assertTrue(there.lock(prefix + "remote", TTL).block(Duration.ofSeconds(20)));
            return System.nanoTime();
        });
        awaitWaiterRecorded(prefix + "remote");
        assertTrue(peer.subscriber().awaitListening(10, TimeUnit.SECONDS));
        Thread.sleep(1_500); // long enough for the waiter's backoff to reach its longest pause, 1 s
        long released = System.nanoTime();
        assertTrue(holder.release());
        long handoff = TimeUnit.NANOSECONDS.toMillis(waiter.get(10, TimeUnit.SECONDS) - released);
        assertTrue(handoff < 120, "woken " + handoff + " ms after the release; a re-check comes every second");
        assertEquals(prefix + "remote", published.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void waitingOnAFreeLockRecordsNothingAndAnswersFree() {
        assertFalse(RedisReplies.yes(
                RedisScript.WAIT.run(store.client(), List.of(RedisKeys.lockKey(prefix + "free")), List.of("someone"))));
        assertFalse(store.client().exists(RedisKeys.lockKey(prefix + "free")), "no key was made");
    }

    /** Polls until a waiter has recorded itself on the lease of {@code name}. */
    private void awaitWaiterRecorded(String name) throws InterruptedException {
        RedisServers.awaitTrue(
                () -> {
                    String lease = store.client().get(RedisKeys.lockKey(name));
                    return lease != null && !lease.split("\n", -1)[1].isEmpty();
                },
                Duration.ofSeconds(10),
                "a waiter to record itself on " + name);
    }
}

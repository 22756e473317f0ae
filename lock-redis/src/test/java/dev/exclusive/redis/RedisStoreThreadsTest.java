package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.LockStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store's one background thread (the release subscriber) comes from the thread factory the provider is given,
 * as a Jakarta EE container's managed factory, and ends when the store is closed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisStoreThreadsTest {

    private static final LockHolder HOLDER = new LockHolder("threads-test", "main", "");

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @Test
    void theSubscriberThreadComesFromTheProvidersFactoryAndEndsWithTheStore() throws InterruptedException {
        String storeName = uniqueStoreName();
        List<Thread> made = new CopyOnWriteArrayList<>();
        ThreadFactory container = task -> {
            Thread thread = new Thread(task, "container-thread");
            made.add(thread);
            return thread;
        };
        RedisLockStore store = (RedisLockStore)
                new RedisLockStoreProvider().create(storeName, Map.of("url", RedisServers.SHARED_URL), container);
        try {
            store.awaitRelease(storeName + ":free", Duration.ofMillis(1)); // the first wait starts the subscriber
            assertTrue(store.subscriber().awaitListening(10, TimeUnit.SECONDS), "the subscriber connects");
            assertEquals(1, made.size(), "the subscriber's thread came from the factory the provider was given");
            Thread subscriber = made.get(0);
            assertEquals("exclusive-redis-subscriber-" + storeName, subscriber.getName());
            assertTrue(subscriber.isDaemon(), "a daemon: it never keeps a JVM alive");
            assertEquals(List.of(subscriber), threadsOf(storeName));
        } finally {
            store.close();
        }
        awaitNoThreadsOf(storeName);
    }

    @Test
    void withoutAFactoryTheSubscriberIsAPlainDaemonThreadThatEndsWithTheStore() throws InterruptedException {
        String storeName = uniqueStoreName();
        LockStore store = new RedisLockStoreProvider().create(storeName, Map.of("url", RedisServers.SHARED_URL));
        try {
            store.awaitRelease(storeName + ":free", Duration.ofMillis(1));
            assertTrue(((RedisLockStore) store).subscriber().awaitListening(10, TimeUnit.SECONDS));
            List<Thread> threads = threadsOf(storeName);
            assertEquals(1, threads.size(), String.valueOf(threads));
            assertEquals(
                    "exclusive-redis-subscriber-" + storeName, threads.get(0).getName());
            assertTrue(threads.get(0).isDaemon());
        } finally {
            store.close();
        }
        awaitNoThreadsOf(storeName);
    }

    @Test
    void aFactoryThatRefusesLeavesWaitersPollingAndAsksAgainLater() throws InterruptedException {
        String storeName = uniqueStoreName();
        AtomicInteger asked = new AtomicInteger();
        ThreadFactory shuttingDown = task -> {
            asked.incrementAndGet();
            return null; // what a ManagedThreadFactory does once its container stops
        };
        try (RedisLockStore store = RedisLockStore.builder()
                .url(URI.create(RedisServers.SHARED_URL))
                .storeName(storeName)
                .threadFactory(shuttingDown)
                .build()) {
            String name = storeName + ":held";
            assertTrue(store.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            long start = System.nanoTime();
            store.awaitRelease(name, Duration.ofMillis(200));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited >= 150 && waited < 5_000, "waited out its pause without a subscriber: " + waited);
            store.awaitRelease(name, Duration.ofMillis(1));
            assertEquals(2, asked.get(), "each wait asks the factory again");
            assertTrue(threadsOf(storeName).isEmpty());
            assertTrue(store.forceRelease(name));
        }
    }

    /** @return a store name of this test alone, so that its threads are told apart from other stores' */
    private static String uniqueStoreName() {
        return "threads-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void awaitNoThreadsOf(String storeName) throws InterruptedException {
        RedisServers.awaitTrue(
                () -> threadsOf(storeName).isEmpty(),
                Duration.ofSeconds(10),
                "every thread of store '" + storeName + "' to end after close(); alive: " + threadsOf(storeName));
    }

    /** @return the live threads named after the store, whatever made them */
    private static List<Thread> threadsOf(String storeName) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("exclusive-")
                        && thread.getName().contains(storeName))
                .toList();
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Release messages on a 3-master Redis Cluster (7.0) that the test starts on ports 7401-7403: sharded
 * ({@code SPUBLISH}), so a release reaches only the shard of its key, once, and only when a waiter of another
 * store instance waits; and the classic broadcast ({@code PUBLISH}) that a Cluster older than Redis 7 falls back
 * to, forced here through the builder. Counted by each node's {@code INFO commandstats}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisShardedReleaseTest {

    private static final int[] PORTS = {7401, 7402, 7403};
    private static final LockHolder HOLDER = new LockHolder("sharded-release-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);
    /** A waiter that is not told polls at 100 ms to 1 s, at 1 s by the release: a message must wake it well before. */
    private static final long PROMPT_MILLIS = 250;

    private static Path folder;
    /** One lock name per master, by port. */
    private static final Map<Integer, String> NAMES = new HashMap<>();

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<RedisLockStore> stores = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-sharded");
        RedisServers.startCluster(folder, 0, PORTS);
        for (int i = 0; NAMES.size() < PORTS.length; i++) {
            String name = "sharded:" + i;
            NAMES.putIfAbsent(masterOf(name), name);
        }
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @AfterEach
    void close() {
        executor.shutdownNow();
        stores.forEach(RedisLockStore::close);
    }

    @Test
    void aReleaseNobodyWaitsForPublishesNothing() {
        RedisLockStore store = store("alone", true);
        assertTrue(store.shardedReleases(), "Redis 7 on Cluster: sharded release messages");
        RedisServers.resetStats(PORTS);
        for (int i = 0; i < 30; i++) {
            String name = "quiet:" + i;
            store.tryAcquire(name, "owner", HOLDER, TTL);
            assertTrue(store.release(name, "owner"), name);
        }
        for (int port : PORTS) {
            assertEquals(0, RedisServers.commandCalls(port, "spublish"), "SPUBLISH on " + port);
            assertEquals(0, RedisServers.commandCalls(port, "publish"), "PUBLISH on " + port);
        }
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherInstanceThroughItsShardAlone() throws Exception {
        RedisLockStore holder = store("holder", true);
        RedisLockStore waiter = store("waiter", true);
        for (Map.Entry<Integer, String> shard : NAMES.entrySet()) {
            int port = shard.getKey();
            String name = shard.getValue();
            assertTrue(holder.tryAcquire(name, "held", HOLDER, TTL).acquired(), name);
            Future<Long> woken = acquiredWhenFree(waiter, name);
            assertTrue(waiter.shards().awaitSubscribed(name, 10, TimeUnit.SECONDS), "subscribed on " + port);
            long millis = wakeUpMillis(holder, name, port, woken);
            System.out.printf("sharded release on %d: waiter of another instance acquired after %d ms%n", port, millis);
            for (int node : PORTS) {
                long spublish = RedisServers.commandCalls(node, "spublish");
                System.out.printf(
                        "  node %d: spublish=%d publish=%d%n",
                        node, spublish, RedisServers.commandCalls(node, "publish"));
                assertEquals(node == port ? 1 : 0, spublish, "SPUBLISH on " + node + " for a key of " + port);
                assertEquals(0, RedisServers.commandCalls(node, "publish"), "no broadcast on " + node);
            }
            assertTrue(waiter.release(name, "next"));
        }
        assertEquals(3, waiter.shards().connections(), "one subscribed connection per shard, not per lock");
    }

    /**
     * The first channel on a shard is subscribed by the shard's new thread, so its {@code SSUBSCRIBE} may reach Redis
     * after the waiter recorded itself on the lease: a release in between is published to nobody. The subscription's
     * confirmation therefore tells the channel's waiters to look again. Here the shard's thread starts 300 ms late
     * and nobody releases: without that, the waiter sleeps its whole wait.
     */
    @Test
    void aWaiterWhoseShardSubscribesLateLooksAgainWhenTheSubscriptionIsConfirmed() throws Exception {
        RedisLockStore holder = store("late-holder", true);
        RedisLockStore waiter = RedisLockStore.builder()
                .clusterNodes(List.of(new HostAndPort(RedisServers.HOST, PORTS[0])))
                .storeName("late-waiter")
                .threadFactory(task -> new Thread(() -> {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
                    task.run();
                }))
                .build();
        stores.add(waiter);
        String name = NAMES.get(PORTS[1]);
        assertTrue(holder.tryAcquire(name, "holder", HOLDER, TTL).acquired());

        long started = System.nanoTime();
        waiter.awaitRelease(name, Duration.ofSeconds(5));
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertTrue(
                waitedMillis < 2_000, "woken by the confirmation after about 300 ms, waited " + waitedMillis + " ms");
        assertTrue(holder.release(name, "holder"));
    }

    @Test
    void aWaiterFollowsItsLocksSlotToAnotherMaster() throws Exception {
        RedisLockStore holder = store("moved-holder", true);
        RedisLockStore waiter = store("moved-waiter", true);
        int from = PORTS[2];
        int to = PORTS[0];
        String name = "moved:" + System.nanoTime();
        while (masterOf(name) != from) {
            name = "moved:" + System.nanoTime();
        }
        String moved = name;
        assertTrue(holder.tryAcquire(moved, "held", HOLDER, TTL).acquired());
        Future<Long> woken = acquiredWhenFree(waiter, moved);
        assertTrue(waiter.shards().awaitSubscribed(moved, 10, TimeUnit.SECONDS));
        assertEquals(1, subscribers(from, moved));

        int slot = JedisClusterCRC16.getSlot(RedisKeys.lockKey(moved));
        moveSlot(slot, from, to);
        try {
            RedisServers.awaitTrue(
                    () -> subscribers(to, moved) == 1 && subscribers(from, moved) == 0,
                    Duration.ofSeconds(10),
                    "the waiter subscribed on the slot's new master");
            long millis = wakeUpMillis(holder, moved, to, woken);
            System.out.printf("after a slot move: waiter acquired %d ms after the release%n", millis);
            assertTrue(waiter.release(moved, "next"));
        } finally {
            moveSlot(slot, to, from); // the other tests find each master's slots where redis-cli put them
        }
    }

    @Test
    void aChannelNobodyWaitsOnIsDroppedLaterAndItsShardConnectionWithIt() throws Exception {
        RedisLockStore holder = store("idle-holder", true);
        RedisLockStore waiter = store("idle-waiter", true);
        String first = NAMES.get(PORTS[0]);
        String second = NAMES.get(PORTS[1]);
        assertTrue(holder.tryAcquire(first, "held", HOLDER, TTL).acquired());
        assertTrue(holder.tryAcquire(second, "held", HOLDER, TTL).acquired());
        waiter.awaitRelease(first, Duration.ofMillis(200)); // one wait that times out
        assertTrue(waiter.shards().awaitSubscribed(first, 10, TimeUnit.SECONDS));
        assertEquals(1, subscribers(PORTS[0], first), "subscribed on the lock's shard");
        assertEquals(1, waiter.shards().connections());

        Thread.sleep(ShardedReleaseSubscriber.IDLE_MILLIS + 200);
        waiter.awaitRelease(second, Duration.ofMillis(200)); // the next wait drops the idle channel
        RedisServers.awaitTrue(
                () -> subscribers(PORTS[0], first) == 0, Duration.ofSeconds(5), "the idle channel unsubscribed");
        assertEquals(1, subscribers(PORTS[1], second), "the waited one subscribed on its own shard");
        RedisServers.awaitTrue(
                () -> waiter.shards().connections() == 1,
                Duration.ofSeconds(5),
                "the first shard's connection closed with its last channel");
        assertTrue(holder.release(first, "held"));
        assertTrue(holder.release(second, "held"));
    }

    @Test
    void withoutShardedMessagesAReleaseIsBroadcastAsBefore() throws Exception {
        RedisLockStore holder = store("old-holder", false);
        RedisLockStore waiter = store("old-waiter", false);
        assertFalse(holder.shardedReleases(), "forced off, as on a Cluster older than Redis 7");
        int port = PORTS[1];
        String name = NAMES.get(port);
        assertTrue(holder.tryAcquire(name, "held", HOLDER, TTL).acquired());
        Future<Long> woken = acquiredWhenFree(waiter, name);
        assertTrue(waiter.subscriber().awaitListening(10, TimeUnit.SECONDS), "subscribed");
        long millis = wakeUpMillis(holder, name, port, woken);
        System.out.printf("broadcast release on %d: waiter acquired after %d ms%n", port, millis);
        for (int node : PORTS) {
            assertEquals(node == port ? 1 : 0, RedisServers.commandCalls(node, "publish"), "PUBLISH on " + node);
            assertEquals(0, RedisServers.commandCalls(node, "spublish"), "no SPUBLISH on " + node);
        }
        assertTrue(waiter.release(name, "next"));
    }

    /**
     * Once the waiter is recorded on the lease (on the master at {@code port}) and its backoff has grown to its
     * longest, resets every node's command counts and releases {@code name}, held by "held".
     *
     * @return how long after the release the waiter acquired; asserted below {@link #PROMPT_MILLIS}
     */
    private static long wakeUpMillis(RedisLockStore holder, String name, int port, Future<Long> woken)
            throws Exception {
        RedisServers.awaitTrue(
                () -> RedisServers.waiterRecorded(port, name),
                Duration.ofSeconds(10),
                "the waiter recorded on " + name);
        Thread.sleep(1_200); // the waiter's backoff grows to its longest: only a message wakes it sooner
        RedisServers.resetStats(PORTS);
        long released = System.nanoTime();
        assertTrue(holder.release(name, "held"));
        long millis = TimeUnit.NANOSECONDS.toMillis(woken.get(10, TimeUnit.SECONDS) - released);
        assertTrue(millis < PROMPT_MILLIS, "woken after " + millis + " ms");
        return millis;
    }

    /** @return when {@code waiter} acquires {@code name} for owner "next", waiting between attempts as block() does */
    private Future<Long> acquiredWhenFree(RedisLockStore waiter, String name) {
        return executor.submit(() -> {
            while (!waiter.tryAcquire(name, "next", HOLDER, TTL).acquired()) {
                waiter.awaitRelease(name, Duration.ofSeconds(20));
            }
            return System.nanoTime();
        });
    }

    private RedisLockStore store(String storeName, boolean sharded) {
        RedisLockStore store = RedisLockStore.builder()
                .clusterNodes(List.of(new HostAndPort(RedisServers.HOST, PORTS[0])))
                .storeName(storeName)
                .fenceRetention(Duration.ofMinutes(5))
                .shardedReleases(sharded)
                .build();
        stores.add(store);
        return store;
    }

    /** @return the port of the master that owns {@code name}'s keys; redis-cli splits the slots evenly */
    private static int masterOf(String name) {
        return PORTS[JedisClusterCRC16.getSlot(RedisKeys.lockKey(name)) * PORTS.length / 16_384];
    }

    /** Moves one slot with its keys from one master to another, as {@code redis-cli --cluster reshard} does. */
    private static void moveSlot(int slot, int from, int to) {
        try (Jedis source = new Jedis(new HostAndPort(RedisServers.HOST, from));
                Jedis target = new Jedis(new HostAndPort(RedisServers.HOST, to))) {
            String sourceId = source.clusterMyId();
            String targetId = target.clusterMyId();
            target.clusterSetSlotImporting(slot, sourceId);
            source.clusterSetSlotMigrating(slot, targetId);
            List<String> keys = source.clusterGetKeysInSlot(slot, 1_000);
            if (!keys.isEmpty()) {
                source.migrate(
                        RedisServers.HOST,
                        to,
                        5_000,
                        new redis.clients.jedis.params.MigrateParams(),
                        keys.toArray(String[]::new));
            }
            target.clusterSetSlotNode(slot, targetId);
            source.clusterSetSlotNode(slot, targetId);
        }
    }

    /** @return how many clients the node on {@code port} has subscribed to the sharded channel of {@code name} */
    private static long subscribers(int port, String name) {
        try (Jedis jedis = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            String channel = RedisKeys.releasedChannel(name);
            return jedis.pubsubShardNumSub(channel).getOrDefault(channel, 0L);
        }
    }
}

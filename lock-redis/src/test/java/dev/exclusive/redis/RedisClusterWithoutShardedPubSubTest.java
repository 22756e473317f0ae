package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The fallback of a Cluster without sharded pub/sub (Redis before 7.0): the store contract, and prompt wake-ups
 * of other instances' waiters, on a 3-master Cluster (7.0) that the test starts on ports 7431-7433 (or from
 * {@code -Dredis.fallback.cluster.port}) with {@code SPUBLISH} and {@code SSUBSCRIBE} removed by
 * {@code rename-command ... ""}: Redis then answers them {@code ERR unknown command}, as Redis 6 does, while its
 * version still says 7. Only Redis 7.0 is at hand to test with, so this stands in for a real 6.x Cluster; what it
 * proves is that the store decides by what the server can do, not by the version it names. The stores are built
 * by the provider from the {@code nodes} setting, with nothing forced.
 */
class RedisClusterWithoutShardedPubSubTest extends LockStoreContract {

    /** {@code -Dredis.fallback.cluster.port=<first>} moves the three nodes, so parallel builds on one host do not meet. */
    private static final int FIRST_PORT = Integer.getInteger("redis.fallback.cluster.port", 7431);

    private static final int[] PORTS = {FIRST_PORT, FIRST_PORT + 1, FIRST_PORT + 2};
    private static final LockHolder HOLDER = new LockHolder("fallback-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);
    /** A waiter that is not told polls at 100 ms to 1 s, at 1 s by the release: a message must wake it well before. */
    private static final long PROMPT_MILLIS = 250;

    private static Path folder;

    @BeforeAll
    static void startClusterWithoutShardedPubSub() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-fallback");
        RedisServers.startCluster(
                folder, 0, PORTS, "--rename-command", "SPUBLISH", "", "--rename-command", "SSUBSCRIBE", "");
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @Override
    protected LockStore createStore() {
        return createStore(Map.of());
    }

    /** Through the provider, as configuration builds it, with {@code more} settings. */
    private LockStore createStore(Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "nodes",
                "127.0.0.1:" + PORTS[0] + ", 127.0.0.1:" + PORTS[1] + ", 127.0.0.1:" + PORTS[2],
                "connect-timeout",
                "2s",
                "socket-timeout",
                "2s"));
        settings.putAll(more);
        return new RedisLockStoreProvider().create(STORE, settings);
    }

    /** The contention case runs in full on {@link RedisClusterLockStoreTest}'s Cluster; here fewer rounds keep CI short. */
    @Override
    protected int contentionRounds() {
        return 100;
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(createStore(Map.of(
                "audit-max-records", Integer.toString(limits.maxRecords()),
                "audit-max-age", limits.maxAge().toString())));
    }

    @Test
    void theNodesAnswerAsRedis6DoesThoughTheirVersionSays7() {
        try (Jedis node = new Jedis(new HostAndPort(RedisServers.HOST, PORTS[0]))) {
            assertTrue(node.info("server").contains("redis_version:7."), "the version a version check would read");
            JedisDataException refused = assertThrows(
                    JedisDataException.class,
                    () -> node.sendCommand(() -> "SPUBLISH".getBytes(), "exclusive:released:{x}", "x"));
            assertTrue(refused.getMessage().startsWith("ERR unknown command"), refused.getMessage());
        }
    }

    @Test
    void withoutShardedPubSubReleasesAreBroadcast() {
        RedisLockStore store = (RedisLockStore) store();
        assertFalse(store.shardedReleases(), "SPUBLISH is not there: releases go by PUBLISH");
        String name = fullName("broadcast");
        assertTrue(store.tryAcquire(name, "owner", HOLDER, TTL).acquired());
        assertTrue(store.release(name, "owner"), "the release script ran: it does not call SPUBLISH");
        for (int node : PORTS) {
            assertEquals(0, RedisServers.commandCalls(node, "spublish"), "no SPUBLISH on " + node);
        }
    }

    @Test
    void aWaiterOfAnotherInstanceIsWokenPromptlyByTheBroadcast() throws Exception {
        RedisLockStore holder = (RedisLockStore) store();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (RedisLockStore waiter = (RedisLockStore) createStore()) {
            for (int port : PORTS) {
                String name = nameOn(port);
                assertTrue(holder.tryAcquire(name, "held", HOLDER, TTL).acquired(), name);
                Future<Long> woken = executor.submit(() -> {
                    while (!waiter.tryAcquire(name, "next", HOLDER, TTL).acquired()) {
                        waiter.awaitRelease(name, Duration.ofSeconds(20));
                    }
                    return System.nanoTime();
                });
                RedisServers.awaitTrue(
                        () -> RedisServers.waiterRecorded(port, name),
                        Duration.ofSeconds(10),
                        "the waiter recorded on " + name);
                assertTrue(waiter.subscriber().awaitListening(10, TimeUnit.SECONDS), "subscribed");
                Thread.sleep(1_200); // the waiter's backoff grows to its longest: only a message wakes it sooner
                RedisServers.resetStats(PORTS);
                long released = System.nanoTime();
                assertTrue(holder.release(name, "held"));
                long millis = TimeUnit.NANOSECONDS.toMillis(woken.get(10, TimeUnit.SECONDS) - released);
                System.out.printf(
                        "Cluster without SPUBLISH/SSUBSCRIBE: a release on %d woke a waiter of another instance,"
                                + " which acquired after %d ms%n",
                        port, millis);
                assertTrue(millis < PROMPT_MILLIS, "woken after " + millis + " ms");
                for (int node : PORTS) {
                    assertEquals(
                            node == port ? 1 : 0, RedisServers.commandCalls(node, "publish"), "PUBLISH on " + node);
                }
                assertTrue(waiter.release(name, "next"));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** @return a name of this test whose keys live on the master at {@code port} */
    private String nameOn(int port) {
        for (int i = 0; ; i++) {
            String name = fullName("woken:" + i);
            if (masterOf(name) == port) {
                return name;
            }
        }
    }

    /** @return the port of the master that owns {@code name}'s keys; redis-cli splits the slots evenly */
    private static int masterOf(String name) {
        return PORTS[JedisClusterCRC16.getSlot(RedisKeys.lockKey(name)) * PORTS.length / 16_384];
    }
}

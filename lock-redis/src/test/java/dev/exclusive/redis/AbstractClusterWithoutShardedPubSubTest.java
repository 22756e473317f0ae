package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The fallback of a Cluster without sharded pub/sub: the store contract, releases sent by {@code PUBLISH} and
 * never {@code SPUBLISH}, and prompt wake-ups of other instances' waiters by a release on each master. Each subclass
 * starts its 3-master Cluster (slots split evenly in port order) on the ports it names; the stores are built by the
 * provider from the {@code nodes} setting, with nothing forced, so the store must find out by itself.
 */
abstract class AbstractClusterWithoutShardedPubSubTest extends LockStoreContract {

    private static final LockHolder HOLDER = new LockHolder("fallback-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);
    /** A waiter that is not told polls at 100 ms to 1 s, at 1 s by the release: a message must wake it well before. */
    private static final long PROMPT_MILLIS = 250;

    private final String cluster;
    private final int[] ports;

    /**
     * @param cluster what the Cluster is, for the measured wake-ups the test prints
     * @param ports   its three masters, in the order of their slot ranges
     */
    AbstractClusterWithoutShardedPubSubTest(String cluster, int[] ports) {
        this.cluster = cluster;
        this.ports = ports.clone();
    }

    @Override
    protected LockStore createStore() {
        return RedisServers.clusterStore(STORE, ports, Map.of());
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(RedisServers.clusterStore(STORE, ports, limits));
    }

    /** The contention case runs in full on {@link RedisClusterLockStoreTest}'s Cluster; here fewer rounds keep CI short. */
    @Override
    protected int contentionRounds() {
        return 100;
    }

    @Test
    void withoutShardedPubSubReleasesAreBroadcast() {
        RedisLockStore store = (RedisLockStore) store();
        assertFalse(store.shardedReleases(), "SPUBLISH is not there: releases go by PUBLISH");
        String name = fullName("broadcast");
        assertTrue(store.tryAcquire(name, "owner", HOLDER, TTL).acquired());
        assertTrue(store.release(name, "owner"), "the release script ran: it does not call SPUBLISH");
        for (int node : ports) {
            assertEquals(0, RedisServers.commandCalls(node, "spublish"), "no SPUBLISH on " + node);
        }
    }

    @Test
    void aWaiterOfAnotherInstanceIsWokenPromptlyByTheBroadcast() throws Exception {
        RedisLockStore holder = (RedisLockStore) store();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (RedisLockStore waiter = (RedisLockStore) createStore()) {
            for (int port : ports) {
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
                RedisServers.resetStats(ports);
                long released = System.nanoTime();
                assertTrue(holder.release(name, "held"));
                long millis = TimeUnit.NANOSECONDS.toMillis(woken.get(10, TimeUnit.SECONDS) - released);
                System.out.printf(
                        "%s: a release on %d woke a waiter of another instance, which acquired after %d ms%n",
                        cluster, port, millis);
                assertTrue(millis < PROMPT_MILLIS, "woken after " + millis + " ms");
                for (int node : ports) {
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
    private int masterOf(String name) {
        return ports[JedisClusterCRC16.getSlot(RedisKeys.lockKey(name)) * ports.length / 16_384];
    }
}

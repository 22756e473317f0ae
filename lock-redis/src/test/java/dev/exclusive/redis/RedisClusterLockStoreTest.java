package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockInfo;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The store contract on a 3-master Redis Cluster that the test starts on ports 7101-7103 (or from {@code -Dredis.cluster.port}) and stops afterwards.
 * The store is built by the provider from the {@code nodes} setting.
 */
class RedisClusterLockStoreTest extends LockStoreContract {

    /** {@code -Dredis.cluster.port=<first>} moves the three nodes, so parallel builds on one host do not meet. */
    private static final int FIRST_PORT = Integer.getInteger("redis.cluster.port", 7101);

    private static final int[] PORTS = {FIRST_PORT, FIRST_PORT + 1, FIRST_PORT + 2};
    private static Path folder;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-cluster");
        RedisServers.startCluster(folder, PORTS);
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @Override
    protected LockStore createStore() {
        return RedisServers.clusterStore(STORE, PORTS, Map.of());
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(RedisServers.clusterStore(STORE, PORTS, limits));
    }

    @Test
    void locksSpreadOverEveryMasterAndAreAllListed() {
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            String name = "spread:" + i;
            assertTrue(lock(name).get(), name);
            int slot = JedisClusterCRC16.getSlot(RedisKeys.lockKey(lock(name).name()));
            assertEquals(
                    slot,
                    JedisClusterCRC16.getSlot(RedisKeys.fenceKey(lock(name).name())),
                    "both keys of a lock share a slot");
            masters.add(slot * PORTS.length / 16_384); // redis-cli splits the slots into equal ranges
        }
        assertEquals(3, masters.size(), "30 names land on all three masters");
        List<LockInfo> listed = registry.liveLocks("spread:", 100);
        assertEquals(30, listed.size(), "listing scans every master");
    }
}

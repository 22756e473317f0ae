package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The store contract through Redis Sentinel: a master on port 7120 and a Sentinel on 7121 that the test starts
 * ({@code redis-server <conf> --sentinel}) and stops afterwards. The store is built by the provider from the
 * {@code sentinel-master} and {@code sentinels} settings and finds the master through the Sentinel.
 */
class RedisSentinelLockStoreTest extends LockStoreContract {

    /** {@code -Dredis.sentinel.port=<master>} moves master and Sentinel, so parallel builds on one host do not meet. */
    private static final int MASTER_PORT = Integer.getInteger("redis.sentinel.port", 7120);

    private static final int SENTINEL_PORT = MASTER_PORT + 1;
    private static final String MASTER_NAME = "exclusive-test";
    private static Path folder;

    @BeforeAll
    static void startSentinel() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-sentinel");
        RedisServers.start(MASTER_PORT, folder);
        RedisServers.stop(SENTINEL_PORT);
        Path config = Files.writeString(
                folder.resolve("sentinel.conf"),
                String.join(
                        "\n",
                        "port " + SENTINEL_PORT,
                        "bind " + RedisServers.HOST,
                        "daemonize yes",
                        "dir " + folder,
                        "logfile " + folder.resolve("sentinel.log"),
                        "sentinel monitor " + MASTER_NAME + " " + RedisServers.HOST + " " + MASTER_PORT + " 1",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 5000",
                        ""));
        RedisServers.run(List.of("redis-server", config.toString(), "--sentinel"));
        RedisServers.awaitTrue(
                () -> RedisServers.answers(SENTINEL_PORT), Duration.ofSeconds(10), "the Sentinel to answer");
        RedisServers.awaitTrue(
                RedisSentinelLockStoreTest::sentinelKnowsTheMaster,
                Duration.ofSeconds(10),
                "the Sentinel to monitor " + MASTER_NAME);
    }

    @AfterAll
    static void stopSentinel() throws IOException, InterruptedException {
        RedisServers.stop(SENTINEL_PORT);
        RedisServers.stop(MASTER_PORT);
        RedisServers.deleteFolder(folder);
    }

    @Override
    protected LockStore createStore() {
        return createStore(Map.of());
    }

    /** Through the provider, as configuration builds it, with {@code more} settings. */
    private LockStore createStore(Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "sentinel-master",
                MASTER_NAME,
                "sentinels",
                RedisServers.HOST + ":" + SENTINEL_PORT,
                "url",
                "redis://" + RedisServers.HOST + "/0"));
        settings.putAll(more);
        return new RedisLockStoreProvider().create(STORE, settings);
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(createStore(Map.of(
                "audit-max-records", Integer.toString(limits.maxRecords()),
                "audit-max-age", limits.maxAge().toString())));
    }

    @Test
    void locksLiveOnTheMasterTheSentinelNames() {
        Lock lock = lock("sentinel:located");
        assertTrue(lock.get());
        try (Jedis master = new Jedis(new HostAndPort(RedisServers.HOST, MASTER_PORT))) {
            assertTrue(master.exists(RedisKeys.lockKey(lock.name())), "the lock's hash is on the master");
        }
    }

    private static boolean sentinelKnowsTheMaster() {
        try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, SENTINEL_PORT))) {
            List<String> address = sentinel.sentinelGetMasterAddrByName(MASTER_NAME);
            return address != null && address.size() == 2 && address.get(1).equals(Integer.toString(MASTER_PORT));
        } catch (RuntimeException e) {
            return false;
        }
    }
}

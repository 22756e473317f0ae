package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The store contract on a real standalone Redis 6.2 ({@link Redis62}), older than 7.0 (the store needs 6.0 or later),
 * that the test starts on port 7440 (or {@code -Dredis.v62.port}) and stops afterwards.
 */
class Redis62LockStoreTest extends LockStoreContract {

    /** {@code -Dredis.v62.port=<port>} moves the server, so parallel builds on one host do not meet. */
    private static final int PORT = Integer.getInteger("redis.v62.port", 7440);

    private static Path folder;

    @BeforeAll
    static void startRedis62() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries(); // redis-cli stops the server
        String server = Redis62.server();
        folder = Files.createTempDirectory("exclusive-redis-62");
        RedisServers.start(server, PORT, folder);
    }

    @AfterAll
    static void stopRedis62() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORT);
    }

    @Override
    protected LockStore createStore() {
        return createStore(AuditLimits.DEFAULT).orElseThrow();
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(RedisServers.standaloneStore("redis://" + RedisServers.HOST + ":" + PORT, STORE, limits));
    }

    @Test
    void theServerIsRedis62() {
        try (Jedis redis = new Jedis(new HostAndPort(RedisServers.HOST, PORT))) {
            assertTrue(redis.info("server").contains("redis_version:6.2."), redis.info("server"));
        }
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The fallback of a Cluster without sharded pub/sub on a real Redis 6.2 Cluster ({@link Redis62}): 3 masters, no
 * command renamed, that the test starts on ports 7441-7443 (or from {@code -Dredis.v62.cluster.port}).
 */
class Redis62ClusterWithoutShardedPubSubTest extends AbstractClusterWithoutShardedPubSubTest {

    /** {@code -Dredis.v62.cluster.port=<first>} moves the three nodes, so parallel builds on one host do not meet. */
    private static final int FIRST_PORT = Integer.getInteger("redis.v62.cluster.port", 7441);

    private static final int[] PORTS = {FIRST_PORT, FIRST_PORT + 1, FIRST_PORT + 2};

    private static Path folder;

    Redis62ClusterWithoutShardedPubSubTest() {
        super("Redis 6.2 Cluster", PORTS);
    }

    @BeforeAll
    static void startRedis62Cluster() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries(); // redis-cli creates the Cluster and stops its nodes
        String server = Redis62.server();
        folder = Files.createTempDirectory("exclusive-redis-62-cluster");
        RedisServers.startCluster(server, folder, 0, PORTS);
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @Test
    void theNodesAreRedis62WithoutShardedPubSub() {
        for (int port : PORTS) {
            try (Jedis node = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                assertTrue(node.info("server").contains("redis_version:6.2."), "the version on " + port);
                assertEquals(
                        Arrays.asList(null, null),
                        node.sendCommand(() -> "COMMAND".getBytes(), "INFO", "SPUBLISH", "SSUBSCRIBE"),
                        "COMMAND INFO describes neither on " + port);
                JedisDataException refused = assertThrows(
                        JedisDataException.class,
                        () -> node.sendCommand(() -> "SPUBLISH".getBytes(), "exclusive:released:{x}", "x"));
                assertTrue(refused.getMessage().startsWith("ERR unknown command"), refused.getMessage());
            }
        }
    }
}

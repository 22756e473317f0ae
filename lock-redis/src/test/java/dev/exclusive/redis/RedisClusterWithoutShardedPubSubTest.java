package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The fallback of a Cluster without sharded pub/sub on a Cluster whose version says 7: 3 masters (the
 * {@code redis-server} on the PATH, 7.0) that the test starts on ports 7431-7433 (or from
 * {@code -Dredis.fallback.cluster.port}) with {@code SPUBLISH} and {@code SSUBSCRIBE} removed by
 * {@code rename-command ... ""}: Redis then answers them {@code ERR unknown command}, as Redis 6 does, while its
 * version still says 7. What it proves is that the store decides by what the server can do, not by the version it
 * names; {@link Redis62ClusterWithoutShardedPubSubTest} runs the same on a real Redis 6.2 Cluster.
 */
class RedisClusterWithoutShardedPubSubTest extends AbstractClusterWithoutShardedPubSubTest {

    /** {@code -Dredis.fallback.cluster.port=<first>} moves the three nodes, so parallel builds on one host do not meet. */
    private static final int FIRST_PORT = Integer.getInteger("redis.fallback.cluster.port", 7431);

    private static final int[] PORTS = {FIRST_PORT, FIRST_PORT + 1, FIRST_PORT + 2};

    private static final LockHolder HOLDER = new LockHolder("fallback-test", "main", "");

    private static Path folder;

    RedisClusterWithoutShardedPubSubTest() {
        super("Cluster without SPUBLISH/SSUBSCRIBE", PORTS);
    }

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

    /**
     * An ACL user that may run neither {@code COMMAND} nor {@code INFO}: the store cannot ask what the server can do,
     * so it takes what every version can ({@code PUBLISH}) instead of failing every release before its script.
     */
    @Test
    void aUserThatMayRunNeitherCommandNorInfoStillReleases() throws IOException, InterruptedException {
        for (int port : PORTS) {
            RedisServers.run(List.of(
                    "redis-cli",
                    "-p",
                    Integer.toString(port),
                    "ACL",
                    "SETUSER",
                    "no-probes",
                    "on",
                    ">no-probes-secret",
                    "~*",
                    "&*",
                    "+@all",
                    "-command",
                    "-info"));
        }
        try (SubscriberWarnings warnings = SubscriberWarnings.record(RedisTopology.class);
                LockStore store = RedisServers.clusterStore(
                        "no-probes", PORTS, Map.of("user", "no-probes", "password", "no-probes-secret"))) {
            String name = RedisServers.uniquePrefix("no-probes") + "lock";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, Duration.ofSeconds(30))
                    .acquired());

            assertTrue(store.release(name, "owner-1"), "released, not unavailable");
            assertTrue(store.inspect(name).isEmpty(), "and free at once, not at the end of its ttl");
            assertFalse(store.release(name, "owner-1"), "a second release finds the lock free");
            List<String> said = warnings.messages();
            assertEquals(1, said.size(), "one warning, when the store decides, not one per release: " + said);
            assertTrue(said.get(0).contains("releases go by PUBLISH"), said.get(0));
            assertFalse(said.get(0).contains("no-probes-secret"), said.get(0));
        }
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
}

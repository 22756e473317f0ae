package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Sentinel failover under load: a master (7560), 2 replicas (7561, 7565) and 3 Sentinels (7562-7564; or from
 * {@code -Dredis.failover.sentinel.port}) on loopback, started by the test. Two replicas, because with {@code min-replicas=1} the promoted master needs one
 * of its own to grant anything. With {@code min-replicas=1}, locks are held and 8 threads in 2 JVMs (this one and
 * a {@link FailoverContenders} process, through {@link TwoJvmFailover}) contend for them and churn other names when the master is killed with
 * SIGKILL. Every call answers within the timeouts (never hangs), the stores of both JVMs follow the promoted
 * replica by themselves, and no lock acquired before the kill goes to a second holder, in either JVM, before its
 * ttl.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverTest {

    /** {@code -Dredis.failover.sentinel.port=<first>} moves the six servers, so parallel builds on one host do not meet. */
    private static final int MASTER_PORT = Integer.getInteger("redis.failover.sentinel.port", 7560);

    private static final List<Integer> REPLICA_PORTS = List.of(MASTER_PORT + 1, MASTER_PORT + 5);
    private static final List<Integer> SENTINEL_PORTS = List.of(MASTER_PORT + 2, MASTER_PORT + 3, MASTER_PORT + 4);
    private static final String MASTER_NAME = "exclusive-failover";
    private static final LockHolder HOLDER = new LockHolder("failover-test", "main", "");

    private static Path folder;

    @BeforeAll
    static void startMasterReplicaAndSentinels() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-failover");
        RedisServers.start(MASTER_PORT, folder);
        for (int port : REPLICA_PORTS) {
            RedisServers.start(port, folder, "--replicaof", RedisServers.HOST, Integer.toString(MASTER_PORT));
            RedisServers.awaitTrue(
                    () -> replicationUp(port), Duration.ofSeconds(20), "replica " + port + " to sync with its master");
        }
        for (int port : SENTINEL_PORTS) {
            RedisServers.stop(port);
            Path config = Files.writeString(
                    folder.resolve("sentinel-" + port + ".conf"),
                    String.join(
                            "\n",
                            "port " + port,
                            "bind " + RedisServers.HOST,
                            "daemonize yes",
                            "dir " + folder,
                            "logfile " + folder.resolve("sentinel-" + port + ".log"),
                            "sentinel monitor " + MASTER_NAME + " " + RedisServers.HOST + " " + MASTER_PORT + " 2",
                            "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                            "sentinel failover-timeout " + MASTER_NAME + " 5000",
                            ""));
            RedisServers.run(List.of("redis-server", config.toString(), "--sentinel"));
        }
        for (int port : SENTINEL_PORTS) {
            RedisServers.awaitTrue(
                    () -> sentinelSeesTheReplicas(port),
                    Duration.ofSeconds(20),
                    "Sentinel " + port + " to know the master and its replica");
        }
    }

    @AfterAll
    static void stopEverything() throws IOException, InterruptedException {
        for (int port : SENTINEL_PORTS) {
            RedisServers.stop(port);
        }
        for (int port : REPLICA_PORTS) {
            RedisServers.stop(port);
        }
        RedisServers.stop(MASTER_PORT);
        RedisServers.deleteFolder(folder);
    }

    @Test
    void killingTheMasterFailsCallsWithinTheTimeoutsAndNoHeldLockGetsASecondHolderInEitherJvm() throws Exception {
        FailoverContenders.Setup setup =
                FailoverContenders.Setup.sentinel(MASTER_NAME, SENTINEL_PORTS, RedisServers.uniquePrefix("failover"));
        try (RedisLockStore store = setup.target().store("failover-holder", 1)) {
            List<Long> fences = new ArrayList<>();
            for (String name : setup.held()) {
                fences.add(((Acquisition.Acquired)
                                store.tryAcquire(name, FailoverContenders.FIRST, HOLDER, FailoverContenders.TTL))
                        .fence());
            }
            try (TwoJvmFailover jvms = TwoJvmFailover.start(setup, folder)) {
                long recoveredMillis = jvms.killAndAwaitRecovery(MASTER_PORT);
                List<FailoverContenders.Figures> figures = jvms.stop();
                System.out.printf(
                        "Sentinel failover, 2 JVMs x %d threads: both worked again %d ms after SIGKILL; %s%n",
                        FailoverContenders.THREADS_PER_JVM, recoveredMillis, figures);

                TwoJvmFailover.assertEveryCallAnsweredInTimeAndNoHeldLockWentToAnother(figures, recoveredMillis);
                assertTrue(
                        REPLICA_PORTS.stream().anyMatch(RedisSentinelFailoverTest::isMaster), "a replica was promoted");
                for (int i = 0; i < FailoverContenders.HELD; i++) {
                    LockEntry entry = store.inspect(setup.held().get(i)).orElseThrow();
                    assertEquals(
                            FailoverContenders.FIRST,
                            entry.owner(),
                            "still held by its first holder after the failover");
                    assertEquals(fences.get(i), entry.fence());
                }
            }
        }
    }

    private static boolean isMaster(int port) {
        try (Jedis jedis = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            return jedis.info("replication").contains("role:master");
        }
    }

    private static boolean replicationUp(int replicaPort) {
        try (Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, replicaPort))) {
            return replica.info("replication").contains("master_link_status:up");
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean sentinelSeesTheReplicas(int port) {
        try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            return sentinel.sentinelReplicas(MASTER_NAME).size() == REPLICA_PORTS.size();
        } catch (RuntimeException e) {
            return false;
        }
    }
}

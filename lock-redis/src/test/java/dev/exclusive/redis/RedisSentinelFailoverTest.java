package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Sentinel failover under load: a master (7560), 2 replicas (7561, 7565) and 3 Sentinels (7562-7564; or from
 * {@code -Dredis.failover.sentinel.port}) on loopback, started by the test. Two replicas, because with
 * {@code min-replicas=1} the promoted master needs one of its own to grant anything. Each test kills the current
 * master with SIGKILL while 8 threads in 2 JVMs (this one and a {@link FailoverContenders} process, through
 * {@link TwoJvmFailover}) work on it; the next test finds the killed server back, as a replica of the promoted one.
 *
 * <ul>
 *   <li>With {@code min-replicas=1}, locks are held and the threads contend for them and churn other names. Every
 *       call answers within the timeouts (never hangs), the stores of both JVMs follow the promoted replica by
 *       themselves, and no lock acquired before the kill goes to a second holder, in either JVM, before its ttl.
 *   <li>Without {@code min-replicas}, the threads take fresh names as fast as they can; every call answers within
 *       the timeouts and the stores follow the promoted replica, and how many of the locks taken before the kill the
 *       failover lost (granted to a second owner afterwards) is printed, not asserted: asynchronous replication
 *       cannot promise none.
 * </ul>
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverTest {

    /** {@code -Dredis.failover.sentinel.port=<first>} moves the six servers, so parallel builds on one host do not meet. */
    private static final int MASTER_PORT = Integer.getInteger("redis.failover.sentinel.port", 7560);

    private static final List<Integer> REPLICA_PORTS = List.of(MASTER_PORT + 1, MASTER_PORT + 5);
    /** The master and its replicas; which one is the master changes with each failover. */
    private static final List<Integer> SERVER_PORTS = List.of(MASTER_PORT, MASTER_PORT + 1, MASTER_PORT + 5);

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

    /**
     * Brings the master a previous test killed back, as a replica of the one Sentinel promoted, and waits until the
     * master has both its replicas in sync and every Sentinel sees them up and knows the other Sentinels. A Sentinel
     * that still does not after 15 s is reset ({@code SENTINEL RESET}), so that it learns them again from the master
     * and the other Sentinels: once in CI the wait ran out after 30 s without saying which part was missing, and it
     * could not be made to happen again; the failure now says.
     */
    @BeforeEach
    void theMasterHasTwoReplicasInSync() throws IOException, InterruptedException {
        int master = currentMaster();
        for (int port : SERVER_PORTS) {
            if (!RedisServers.answers(port)) {
                RedisServers.start(port, folder, "--replicaof", RedisServers.HOST, Integer.toString(master));
            }
        }
        long start = System.nanoTime();
        boolean reset = false;
        while (!inSyncAndSeen(master)) {
            long elapsed = System.nanoTime() - start;
            if (!reset && elapsed > TimeUnit.SECONDS.toNanos(15)) {
                for (int port : SENTINEL_PORTS) {
                    if (!sentinelSeesTheReplicasUp(port)) {
                        try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                            sentinel.sentinelReset(MASTER_NAME);
                        }
                    }
                }
                reset = true;
            }
            if (elapsed > TimeUnit.SECONDS.toNanos(60)) {
                throw new AssertionError("waited 60 s for master " + master
                        + " with 2 replicas in sync, seen up by every Sentinel (reset after 15 s): " + state(master));
            }
            Thread.sleep(50);
        }
    }

    private static boolean inSyncAndSeen(int master) {
        return isMaster(master)
                && SERVER_PORTS.stream().filter(port -> port != master).allMatch(port -> replicaOf(port, master))
                && SENTINEL_PORTS.stream().allMatch(RedisSentinelFailoverTest::sentinelSeesTheReplicasUp)
                && SENTINEL_PORTS.stream().allMatch(RedisSentinelFailoverTest::sentinelKnowsTheOthers);
    }

    /** What {@link #inSyncAndSeen(int)} looks at, for a failure message. */
    private static String state(int master) {
        StringBuilder state = new StringBuilder();
        for (int port : SERVER_PORTS) {
            state.append("\n  server ").append(port).append(": ");
            try (Jedis jedis = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                String replication = jedis.info("replication");
                state.append(replication
                        .lines()
                        .filter(line -> line.startsWith("role:")
                                || line.startsWith("master_port:")
                                || line.startsWith("master_link_status:")
                                || line.startsWith("connected_slaves:"))
                        .toList());
            } catch (RuntimeException e) {
                state.append(e);
            }
        }
        for (int port : SENTINEL_PORTS) {
            state.append("\n  Sentinel ").append(port).append(": ");
            try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                state.append("replicas ")
                        .append(sentinel.sentinelReplicas(MASTER_NAME).stream()
                                .map(replica -> replica.get("port") + " " + replica.get("flags"))
                                .toList())
                        .append(", other Sentinels ")
                        .append(sentinel.sentinelSentinels(MASTER_NAME).size());
            } catch (RuntimeException e) {
                state.append(e);
            }
        }
        return state.toString();
    }

    private static boolean sentinelKnowsTheOthers(int port) {
        try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            return sentinel.sentinelSentinels(MASTER_NAME).size() == SENTINEL_PORTS.size() - 1;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @AfterAll
    static void stopEverything() throws IOException, InterruptedException {
        for (int port : SENTINEL_PORTS) {
            RedisServers.stop(port);
        }
        for (int port : SERVER_PORTS) {
            RedisServers.stop(port);
        }
        RedisServers.deleteFolder(folder);
    }

    @Test
    void killingTheMasterFailsCallsWithinTheTimeoutsAndNoHeldLockGetsASecondHolderInEitherJvm() throws Exception {
        int killed = currentMaster();
        FailoverContenders.Setup setup = FailoverContenders.Setup.sentinel(
                MASTER_NAME, SENTINEL_PORTS, RedisServers.uniquePrefix("failover"), FailoverContenders.Load.SAFE);
        try (RedisLockStore store = setup.target().store("failover-holder", 1)) {
            List<Long> fences = new ArrayList<>();
            for (String name : setup.held()) {
                fences.add(((Acquisition.Acquired)
                                store.tryAcquire(name, FailoverContenders.FIRST, HOLDER, FailoverContenders.TTL))
                        .fence());
            }
            try (TwoJvmFailover jvms = TwoJvmFailover.start(setup, folder)) {
                long recoveredMillis = jvms.killAndAwaitRecovery(killed);
                List<FailoverContenders.Figures> figures = jvms.stop();
                System.out.printf(
                        "Sentinel failover, 2 JVMs x %d threads: both worked again %d ms after SIGKILL; %s%n",
                        FailoverContenders.THREADS_PER_JVM, recoveredMillis, figures);

                TwoJvmFailover.assertEveryCallAnsweredInTimeAndNoHeldLockWentToAnother(figures, recoveredMillis);
                assertPromotedInPlaceOf(killed);
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

    /**
     * Without {@code min-replicas}, what a failover loses is reported, not asserted: 8 threads in 2 JVMs take fresh
     * names as fast as they can, and after the failover each JVM offers every lock it acquired before the kill to a
     * second owner: still held by its first, or lost (and then granted at once, with a greater fence).
     */
    @Test
    void withoutMinReplicasAFailoverMayLoseTheLastAcquisitionsWhichIsReported() throws Exception {
        int killed = currentMaster();
        FailoverContenders.Setup setup = FailoverContenders.Setup.sentinel(
                MASTER_NAME, SENTINEL_PORTS, RedisServers.uniquePrefix("sentinel-grab"), FailoverContenders.Load.GRAB);
        try (TwoJvmFailover jvms = TwoJvmFailover.start(setup, folder)) {
            long recoveredMillis = jvms.killAndAwaitRecovery(killed);
            List<FailoverContenders.Figures> figures = jvms.stop();
            System.out.printf(
                    "Sentinel failover without min-replicas, 2 JVMs x %d threads: acquisitions again in both %d ms"
                            + " after the kill of master %d; %s%n",
                    FailoverContenders.THREADS_PER_JVM,
                    recoveredMillis,
                    killed,
                    figures.stream().map(FailoverContenders.Figures::losses).toList());
            for (FailoverContenders.Figures jvm : figures) {
                assertEquals(
                        0,
                        jvm.unexpected(),
                        jvm.jvm() + ": only acquired, busy or unavailable, and a lost lock granted again with a"
                                + " greater fence; " + jvm.firstProblems());
                assertTrue(
                        jvm.slowest() <= TwoJvmFailover.SLOWEST_CALL_BOUND_MILLIS,
                        jvm.jvm() + ": the slowest call took " + jvm.slowest() + " ms; bound "
                                + TwoJvmFailover.SLOWEST_CALL_BOUND_MILLIS + " ms");
                assertTrue(jvm.takenBeforeKill() > 0, jvm.jvm() + " took locks before the kill");
            }
            assertPromotedInPlaceOf(killed);
        }
    }

    /** Asserts that Sentinel promoted one of the killed master's replicas, and that the promoted one says so. */
    private static void assertPromotedInPlaceOf(int killed) {
        int promoted = currentMaster();
        assertNotEquals(killed, promoted, "Sentinel names another master");
        assertTrue(SERVER_PORTS.contains(promoted), "one of the replicas was promoted: " + promoted);
        assertTrue(isMaster(promoted), promoted + " answers as master");
    }

    /** @return the port of the master, as the first Sentinel that answers names it */
    private static int currentMaster() {
        for (int port : SENTINEL_PORTS) {
            try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                return Integer.parseInt(
                        sentinel.sentinelGetMasterAddrByName(MASTER_NAME).get(1));
            } catch (RuntimeException e) {
                // that Sentinel is down: ask the next
            }
        }
        throw new AssertionError("no Sentinel answers on " + SENTINEL_PORTS);
    }

    private static boolean replicaOf(int port, int master) {
        try (Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            String replication = replica.info("replication");
            return replication.contains("master_port:" + master) && replication.contains("master_link_status:up");
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean sentinelSeesTheReplicasUp(int port) {
        try (Jedis sentinel = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
            List<Map<String, String>> replicas = sentinel.sentinelReplicas(MASTER_NAME);
            return replicas.size() == REPLICA_PORTS.size()
                    && replicas.stream()
                            .allMatch(replica -> replica.get("flags").equals("slave"));
        } catch (RuntimeException e) {
            return false;
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

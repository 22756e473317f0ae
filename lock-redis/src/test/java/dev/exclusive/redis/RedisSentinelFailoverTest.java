package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Sentinel failover under load: a master (7560), 2 replicas (7561, 7565) and 3 Sentinels (7562-7564) on
 * loopback, started by the test. Two replicas, because with {@code min-replicas=1} the promoted master needs one
 * of its own to grant anything. With {@code min-replicas=1}, locks are held and 8 threads in 2 JVMs (this one and
 * a {@link FailoverContenders} process) contend for them and churn other names when the master is killed with
 * SIGKILL. Every call answers within the timeouts (never hangs), the stores of both JVMs follow the promoted
 * replica by themselves, and no lock acquired before the kill goes to a second holder, in either JVM, before its
 * ttl.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverTest {

    private static final int MASTER_PORT = 7560;
    private static final List<Integer> REPLICA_PORTS = List.of(7561, 7565);
    private static final List<Integer> SENTINEL_PORTS = List.of(7562, 7563, 7564);
    private static final String MASTER_NAME = "exclusive-failover";
    private static final int THREADS_PER_JVM = 4;
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
        String prefix = RedisServers.uniquePrefix("failover");
        try (RedisLockStore store = FailoverContenders.store(SENTINEL_PORTS, MASTER_NAME)) {
            List<Long> fences = new ArrayList<>();
            for (int i = 0; i < FailoverContenders.HELD; i++) {
                fences.add(((Acquisition.Acquired)
                                store.tryAcquire(prefix + "held:" + i, "first", HOLDER, FailoverContenders.TTL))
                        .fence());
            }
            Path log = folder.resolve("other-jvm.log");
            Process other = RedisServers.startJvm(
                    FailoverContenders.class,
                    log,
                    SENTINEL_PORTS.stream().map(String::valueOf).collect(Collectors.joining(",")),
                    MASTER_NAME,
                    prefix,
                    Integer.toString(THREADS_PER_JVM));
            try (Writer toOther = new OutputStreamWriter(other.getOutputStream(), StandardCharsets.UTF_8)) {
                FailoverContenders contenders = new FailoverContenders(store, prefix, "this-jvm-");
                contenders.start(THREADS_PER_JVM);
                RedisServers.awaitTrue(
                        () -> contenders.churned.get() >= 20 && logHas(log, "started"),
                        Duration.ofSeconds(20),
                        "the contenders of both JVMs to get going");

                long killed = System.nanoTime();
                ProcessHandle.of(RedisServers.processId(MASTER_PORT))
                        .orElseThrow()
                        .destroyForcibly(); // SIGKILL
                toOther.write("killed\n");
                toOther.flush();
                int churnedAtKill = contenders.churned.get();
                RedisServers.awaitTrue(
                        () -> contenders.churned.get() > churnedAtKill + 20 && logHas(log, "recovered"),
                        Duration.ofSeconds(30),
                        "the stores of both JVMs to work again on the promoted replica");
                long recoveredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                contenders.stop();
                toOther.write("stop\n");
                toOther.flush();
                assertTrue(other.waitFor(20, TimeUnit.SECONDS), "the other JVM ended");
                String summary = Files.readString(log)
                        .lines()
                        .filter(line -> line.startsWith("churnedAtKill="))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no summary from the other JVM: " + readQuietly(log)));
                long otherSlowest = figure(summary, "slowest");
                System.out.printf(
                        "Sentinel failover, 2 JVMs x %d threads: both worked again %d ms after SIGKILL; this JVM:"
                                + " slowest call %d ms, %d calls unavailable, %d names taken and freed; the other: %s%n",
                        THREADS_PER_JVM,
                        recoveredMillis,
                        contenders.slowest.get(),
                        contenders.unavailable.get(),
                        contenders.churned.get(),
                        summary);

                assertEquals(0, other.exitValue(), "the other JVM failed: " + readQuietly(log));
                assertTrue(
                        contenders.unexpected.isEmpty(),
                        "only acquired, busy or unavailable: " + contenders.unexpected);
                assertEquals(List.of(), contenders.secondHolders, "a lock held since before the kill went to another");
                assertEquals(0, figure(summary, "second"), "the other JVM got a lock held since before the kill");
                assertEquals(0, figure(summary, "unexpected"), "the other JVM: only acquired, busy or unavailable");
                long bound = FailoverContenders.TIMEOUT.toMillis() * 3
                        + FailoverContenders.REPLICA_TIMEOUT.toMillis()
                        + 1_000;
                assertTrue(
                        contenders.slowest.get() <= bound && otherSlowest <= bound,
                        "the slowest calls took " + contenders.slowest + " and " + otherSlowest + " ms; bound " + bound
                                + " ms (recovered after " + recoveredMillis + " ms)");
                assertTrue(
                        REPLICA_PORTS.stream().anyMatch(RedisSentinelFailoverTest::isMaster), "a replica was promoted");
                for (int i = 0; i < FailoverContenders.HELD; i++) {
                    LockEntry entry = store.inspect(prefix + "held:" + i).orElseThrow();
                    assertEquals("first", entry.owner(), "still held by its first holder after the failover");
                    assertEquals(fences.get(i), entry.fence());
                }
            } finally {
                other.destroyForcibly();
            }
        }
    }

    private static boolean logHas(Path log, String line) {
        return readQuietly(log).lines().anyMatch(line::equals);
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** @return the number after {@code name=} in a summary line of the other JVM */
    private static long figure(String summary, String name) {
        Matcher matcher = Pattern.compile("\\b" + name + "=(\\d+)").matcher(summary);
        assertTrue(matcher.find(), name + " in " + summary);
        return Long.parseLong(matcher.group(1));
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

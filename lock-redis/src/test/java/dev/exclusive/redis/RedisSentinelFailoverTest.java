package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Sentinel failover under load: a master (7160), 2 replicas (7161, 7165) and 3 Sentinels (7162-7164) on
 * loopback, started by the test. Two replicas, because with {@code min-replicas=1} the promoted master needs one
 * of its own to grant anything. With {@code min-replicas=1}, locks are held and 8 threads contend for them and churn other
 * names when the master is killed with SIGKILL. Every call answers within the timeouts (never hangs), the store
 * follows the promoted replica by itself, and no lock acquired before the kill goes to a second holder before its
 * ttl.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverTest {

    private static final int MASTER_PORT = 7160;
    private static final List<Integer> REPLICA_PORTS = List.of(7161, 7165);
    private static final List<Integer> SENTINEL_PORTS = List.of(7162, 7163, 7164);
    private static final String MASTER_NAME = "exclusive-failover";
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration REPLICA_TIMEOUT = Duration.ofMillis(500);
    private static final int HELD = 4;
    private static final int THREADS = 8;
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
    void killingTheMasterFailsCallsWithinTheTimeoutsAndNoHeldLockGetsASecondHolder() throws Exception {
        String prefix = RedisServers.uniquePrefix("failover");
        Duration ttl = Duration.ofSeconds(60);
        try (RedisLockStore store = RedisLockStore.builder()
                .sentinel(
                        MASTER_NAME,
                        SENTINEL_PORTS.stream()
                                .map(port -> new HostAndPort(RedisServers.HOST, port))
                                .toList())
                .storeName("failover")
                .connectTimeout(TIMEOUT)
                .socketTimeout(TIMEOUT)
                .minReplicas(1)
                .replicaTimeout(REPLICA_TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build()) {
            List<Long> fences = new ArrayList<>();
            for (int i = 0; i < HELD; i++) {
                fences.add(
                        ((Acquisition.Acquired) store.tryAcquire(prefix + "held:" + i, "first", HOLDER, ttl)).fence());
            }
            Contenders contenders = new Contenders(store, prefix, ttl);
            contenders.start();
            RedisServers.awaitTrue(
                    () -> contenders.churned.get() >= 20, Duration.ofSeconds(10), "the contenders to get going");

            long killed = System.nanoTime();
            ProcessHandle.of(RedisServers.processId(MASTER_PORT)).orElseThrow().destroyForcibly(); // SIGKILL
            int churnedAtKill = contenders.churned.get();
            RedisServers.awaitTrue(
                    () -> contenders.churned.get() > churnedAtKill + 20,
                    Duration.ofSeconds(30),
                    "the store to work again on the promoted replica");
            long recoveredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            contenders.stop();
            System.out.printf(
                    "Sentinel failover: the store worked again %d ms after SIGKILL; slowest call %d ms; %d calls"
                            + " unavailable; %d names taken and freed%n",
                    recoveredMillis, contenders.slowest.get(), contenders.unavailable.get(), contenders.churned.get());

            assertTrue(contenders.unexpected.isEmpty(), "only acquired, busy or unavailable: " + contenders.unexpected);
            assertEquals(List.of(), contenders.secondHolders, "a lock held since before the kill went to another");
            long bound = TIMEOUT.toMillis() * 3 + REPLICA_TIMEOUT.toMillis() + 1_000;
            assertTrue(
                    contenders.slowest.get() <= bound,
                    "the slowest call took " + contenders.slowest + " ms; bound " + bound + " ms (recovered after "
                            + recoveredMillis + " ms, " + contenders.unavailable + " calls unavailable)");
            assertTrue(REPLICA_PORTS.stream().anyMatch(RedisSentinelFailoverTest::isMaster), "a replica was promoted");
            for (int i = 0; i < HELD; i++) {
                LockEntry entry = store.inspect(prefix + "held:" + i).orElseThrow();
                assertEquals("first", entry.owner(), "still held by its first holder after the failover");
                assertEquals(fences.get(i), entry.fence());
            }
        }
    }

    /** 8 threads: each tries a held lock (never granted before its ttl), then takes and frees a name of its own. */
    private static final class Contenders {
        final AtomicInteger churned = new AtomicInteger();
        final AtomicInteger unavailable = new AtomicInteger();
        final AtomicLong slowest = new AtomicLong();
        final List<String> secondHolders = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final RedisLockStore store;
        private final String prefix;
        private final Duration ttl;

        Contenders(RedisLockStore store, String prefix, Duration ttl) {
            this.store = store;
            this.prefix = prefix;
            this.ttl = ttl;
        }

        void start() {
            for (int t = 0; t < THREADS; t++) {
                String owner = "contender-" + t;
                String held = prefix + "held:" + (t % HELD);
                String own = prefix + "own:" + t;
                Thread thread = new Thread(() -> contend(owner, held, own), owner);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
                assertTrue(!thread.isAlive(), thread.getName() + " ended: no call hangs");
            }
        }

        private void contend(String owner, String held, String own) {
            while (running.get()) {
                timed(() -> {
                    if (store.tryAcquire(held, owner, HOLDER, ttl).acquired()) {
                        secondHolders.add(held + " by " + owner);
                    }
                });
                timed(() -> {
                    if (store.tryAcquire(own, owner, HOLDER, ttl).acquired() && store.release(own, owner)) {
                        churned.incrementAndGet();
                    }
                });
            }
        }

        private void timed(Runnable call) {
            long began = System.nanoTime();
            try {
                call.run();
            } catch (LockStoreUnavailableException e) {
                unavailable.incrementAndGet();
            } catch (RuntimeException e) {
                unexpected.add(e);
            }
            slowest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), Math::max);
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

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Cluster failover under load: 3 masters and 3 replicas on ports 7411-7416 (or from {@code -Dredis.failover.cluster.port}; {@code cluster-node-timeout} 1000
 * ms, {@code cluster-require-full-coverage no}: with the default {@code yes}, every master answers
 * {@code CLUSTERDOWN} for every slot from the moment the killed master is marked failed until its replica takes
 * over, and the other shards' locks cannot be extended for those seconds), started by the test. Locks on every shard are held (by a store with {@code min-replicas=1}, so each
 * acquisition reached its shard's replica), 8 threads contend for them and take and free names of their own on
 * every shard, and a holder keeps extending the held locks of the other shards, when one master is killed with
 * SIGKILL. Every call answers within the timeouts (acquired, busy or unavailable: never a hang); the other shards
 * never notice (every call there succeeds, every extension holds); the store follows the promoted replica by itself
 * (names on the killed shard are taken and freed again); and no lock acquired before the kill goes to a second
 * holder before its ttl.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisClusterFailoverTest {

    /** {@code -Dredis.failover.cluster.port=<first>} moves the six nodes, so parallel builds on one host do not meet. */
    private static final int FIRST_PORT = Integer.getInteger("redis.failover.cluster.port", 7411);

    private static final int[] PORTS =
            IntStream.range(FIRST_PORT, FIRST_PORT + 6).toArray();
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration REPLICA_TIMEOUT = Duration.ofMillis(500);
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final int THREADS = 8;
    private static final LockHolder HOLDER = new LockHolder("cluster-failover-test", "main", "");

    private static final String[] NODE_SETTINGS = {
        "--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "no"
    };

    private static Path folder;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-cluster-failover");
        RedisServers.startCluster(folder, 1, PORTS, NODE_SETTINGS);
    }

    /** Brings a master a previous test killed back, as a replica of its successor: 3 masters, each replicated. */
    @BeforeEach
    void everyMasterHasAReplica() throws IOException, InterruptedException {
        for (int port : PORTS) {
            if (!RedisServers.answers(port)) {
                RedisServers.startClusterNode(folder, port, NODE_SETTINGS);
            }
        }
        RedisServers.awaitTrue(
                () -> masters().size() == 3 && replicasInSync() == 3,
                Duration.ofSeconds(30),
                "3 masters, each with a replica in sync");
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @Test
    void killingAMasterLeavesTheOtherShardsAloneAndNoHeldLockGetsASecondHolder() throws Exception {
        Map<Integer, int[]> masters = masters(); // port -> slot range
        int killedPort = masters.keySet().iterator().next();
        IntPredicate onKilledShard = slot -> slot >= masters.get(killedPort)[0] && slot <= masters.get(killedPort)[1];
        try (RedisLockStore safe = store("failover-safe", 1);
                RedisLockStore plain = store("failover-plain", 0);
                RedisLockStore other = store("failover-waiter", 0)) {
            // two held names and one name of their own per thread, on every shard
            List<String> held = names("held:", 6, masters);
            List<String> own = names("own:", THREADS, masters);
            List<String> plainOwn = names("plain:", THREADS, masters);
            Map<String, Long> fences = new LinkedHashMap<>();
            for (String name : held) {
                fences.put(name, ((Acquisition.Acquired) safe.tryAcquire(name, "first", HOLDER, TTL)).fence());
            }
            // a waiter of another instance, subscribed on the shard that is killed
            String awaited = names("awaited:", 3, masters).stream()
                    .filter(name -> onKilledShard.test(slot(name)))
                    .findFirst()
                    .orElseThrow();
            assertTrue(safe.tryAcquire(awaited, "sleeper", HOLDER, TTL).acquired());
            Future<Long> woken = Executors.newSingleThreadExecutor(runnable -> {
                        Thread thread = new Thread(runnable, "awaiting");
                        thread.setDaemon(true);
                        return thread;
                    })
                    .submit(() -> awaitAndAcquire(other, awaited));
            assertTrue(other.shards().awaitSubscribed(awaited, 10, TimeUnit.SECONDS), "subscribed before the kill");
            Load load = new Load(safe, plain, held, own, plainOwn, onKilledShard);
            load.start();
            RedisServers.awaitTrue(() -> load.churned.get() >= 50, Duration.ofSeconds(10), "the load to get going");

            long killed = System.nanoTime();
            ProcessHandle.of(RedisServers.processId(killedPort)).orElseThrow().destroyForcibly(); // SIGKILL
            int churnedAtKill = load.churnedOnKilledShard.get();
            RedisServers.awaitTrue(
                    () -> load.churnedOnKilledShard.get() > churnedAtKill + 20,
                    Duration.ofSeconds(30),
                    "the store to take and free names on the killed shard again");
            long recoveredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            Thread.sleep(500); // a little more load on the promoted replica
            load.stop();
            assertTrue(
                    other.shards().awaitSubscribed(awaited, 10, TimeUnit.SECONDS),
                    "the waiter subscribed again, on the promoted replica");
            Thread.sleep(1_200); // the waiter's backoff grows to its longest: only a message wakes it sooner
            long released = System.nanoTime();
            assertTrue(plain.release(awaited, "sleeper"), "the lock held across the failover is released");
            long wakeMillis = TimeUnit.NANOSECONDS.toMillis(woken.get(10, TimeUnit.SECONDS) - released);
            System.out.printf(
                    "Cluster failover: names on the killed shard (%d) taken again %d ms after SIGKILL; slowest call %d"
                            + " ms; %d calls unavailable on the killed shard, %d elsewhere; %d extensions of other"
                            + " shards' locks; %d names taken and freed; the waiter on the killed shard acquired %d ms"
                            + " after a release on the promoted replica%n",
                    killedPort,
                    recoveredMillis,
                    load.slowest.get(),
                    load.unavailable.get(),
                    load.elsewhere.size(),
                    load.extended.get(),
                    load.churned.get(),
                    wakeMillis);

            assertTrue(wakeMillis < 250, "woken by a message on the promoted replica after " + wakeMillis + " ms");
            assertTrue(load.unexpected.isEmpty(), "only acquired, busy or unavailable: " + load.unexpected);
            assertEquals(
                    0,
                    load.elsewhere.size(),
                    "the other shards never noticed; first of " + load.elsewhere.size() + ": "
                            + load.elsewhere.subList(0, Math.min(3, load.elsewhere.size())));
            assertEquals(List.of(), load.secondHolders, "a lock held since before the kill went to another");
            long bound = TIMEOUT.toMillis() * 3 + REPLICA_TIMEOUT.toMillis() + 1_000;
            assertTrue(
                    load.slowest.get() <= bound,
                    "the slowest call took " + load.slowest + " ms; bound " + bound + " ms");
            assertFalse(masters().containsKey(killedPort), "the killed master is gone");
            assertEquals(3, masters().size(), "a replica was promoted");
            for (Map.Entry<String, Long> lock : fences.entrySet()) {
                LockEntry entry = plain.inspect(lock.getKey()).orElseThrow();
                assertEquals("first", entry.owner(), lock.getKey() + " still held by its first holder");
                assertEquals(lock.getValue(), entry.fence(), lock.getKey() + " keeps its fence");
            }
        }
    }

    /**
     * Without {@code min-replicas}, what a failover loses is reported, not asserted: 8 threads take fresh names on
     * the shard that is killed as fast as they can, and after the failover each lock acquired before the kill is
     * checked: still held by its owner, or gone (and then granted to a second caller at once).
     */
    @Test
    void withoutMinReplicasAFailoverMayLoseTheLastAcquisitionsWhichIsReported() throws Exception {
        Map<Integer, int[]> masters = masters();
        int killedPort = masters.keySet().iterator().next();
        int[] range = masters.get(killedPort);
        try (RedisLockStore plain = store("failover-no-replicas", 0)) {
            Map<String, Long> acquired = new java.util.concurrent.ConcurrentHashMap<>();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger unavailable = new AtomicInteger();
            AtomicLong slowest = new AtomicLong();
            List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                String prefix = "grab:" + t + ":";
                Thread thread = new Thread(() -> {
                    int i = 0;
                    while (running.get()) {
                        String name = prefix + i++;
                        int slot = slot(name);
                        if (slot < range[0] || slot > range[1]) {
                            continue;
                        }
                        long began = System.nanoTime();
                        try {
                            if (plain.tryAcquire(name, "first", HOLDER, TTL).acquired()) {
                                acquired.put(name, System.nanoTime());
                            }
                        } catch (LockStoreUnavailableException e) {
                            unavailable.incrementAndGet();
                        } catch (RuntimeException e) {
                            unexpected.add(e);
                        }
                        slowest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), Math::max);
                    }
                });
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
            RedisServers.awaitTrue(() -> acquired.size() >= 200, Duration.ofSeconds(10), "the load to get going");
            long killed = System.nanoTime();
            ProcessHandle.of(RedisServers.processId(killedPort)).orElseThrow().destroyForcibly(); // SIGKILL
            int beforeKill = acquired.size();
            RedisServers.awaitTrue(
                    () -> acquired.size() > beforeKill + 20, Duration.ofSeconds(30), "acquisitions on the new master");
            long recoveredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
                assertFalse(thread.isAlive(), "no call hangs");
            }
            int before = 0;
            int lastSecond = 0;
            List<String> lost = new ArrayList<>();
            for (Map.Entry<String, Long> lock : acquired.entrySet()) {
                if (lock.getValue() - killed < 0) {
                    before++;
                    lastSecond += killed - lock.getValue() < TimeUnit.SECONDS.toNanos(1) ? 1 : 0;
                    if (plain.tryAcquire(lock.getKey(), "second", HOLDER, TTL).acquired()) {
                        lost.add(lock.getKey());
                    }
                }
            }
            System.out.printf(
                    "Cluster failover without min-replicas: %d locks acquired on the killed shard before SIGKILL (%d in"
                            + " its last second); %d of them granted to a second holder after the failover %s;"
                            + " acquisitions again %d ms after the kill; %d calls unavailable; slowest call %d ms%n",
                    before,
                    lastSecond,
                    lost.size(),
                    lost.subList(0, Math.min(5, lost.size())),
                    recoveredMillis,
                    unavailable.get(),
                    slowest.get());
            assertTrue(unexpected.isEmpty(), "only acquired, busy or unavailable: " + unexpected);
            long bound = TIMEOUT.toMillis() * 3 + 1_000;
            assertTrue(slowest.get() <= bound, "the slowest call took " + slowest + " ms; bound " + bound + " ms");
        }
    }

    /** @return when {@code store} acquired {@code name}, blocking as {@code block()} does */
    private static long awaitAndAcquire(RedisLockStore store, String name) throws InterruptedException {
        while (true) {
            try {
                if (store.tryAcquire(name, "next", HOLDER, TTL).acquired()) {
                    return System.nanoTime();
                }
            } catch (LockStoreUnavailableException e) {
                // its shard is failing over: wait and try again, as block() does
            }
            store.awaitRelease(name, Duration.ofSeconds(1));
        }
    }

    /**
     * 8 threads, each on every round: tries a held lock (never granted before its ttl), then takes and frees a name
     * of its own on the store with {@code min-replicas=1} and another on the plain one; the plain store's names
     * show the killed shard working again (the promoted replica has no replica of its own, so {@code min-replicas}
     * refuses there, as unavailable). A ninth thread extends the held locks of the other shards every 100 ms.
     */
    private static final class Load {
        final AtomicInteger churned = new AtomicInteger();
        final AtomicInteger churnedOnKilledShard = new AtomicInteger();
        final AtomicInteger unavailable = new AtomicInteger();
        final AtomicInteger extended = new AtomicInteger();
        final AtomicLong slowest = new AtomicLong();
        final List<String> secondHolders = Collections.synchronizedList(new ArrayList<>());
        final List<String> elsewhere = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final RedisLockStore safe;
        private final RedisLockStore plain;
        private final List<String> held;
        private final List<String> own;
        private final List<String> plainOwn;
        private final IntPredicate onKilledShard;

        Load(
                RedisLockStore safe,
                RedisLockStore plain,
                List<String> held,
                List<String> own,
                List<String> plainOwn,
                IntPredicate killed) {
            this.safe = safe;
            this.plain = plain;
            this.held = held;
            this.own = own;
            this.plainOwn = plainOwn;
            this.onKilledShard = killed;
        }

        void start() {
            for (int t = 0; t < THREADS; t++) {
                String owner = "contender-" + t;
                String contended = held.get(t % held.size());
                String name = own.get(t);
                String plainName = plainOwn.get(t);
                thread(owner, () -> contend(owner, contended, name, plainName));
            }
            thread("extender", this::extend);
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
                assertFalse(thread.isAlive(), thread.getName() + " ended: no call hangs");
            }
        }

        private void thread(String name, Runnable work) {
            Thread thread = new Thread(work, name);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }

        private void contend(String owner, String contended, String name, String plainName) {
            boolean killedShard = onKilledShard.test(slot(plainName));
            while (running.get()) {
                timed(contended, () -> {
                    if (safe.tryAcquire(contended, owner, HOLDER, TTL).acquired()) {
                        secondHolders.add(contended + " by " + owner);
                    }
                });
                timed(name, () -> {
                    if (safe.tryAcquire(name, owner, HOLDER, TTL).acquired()) {
                        assertTrue(safe.release(name, owner), name + " released by " + owner);
                        churned.incrementAndGet();
                    }
                });
                timed(plainName, () -> {
                    if (plain.tryAcquire(plainName, owner, HOLDER, TTL).acquired()) {
                        assertTrue(plain.release(plainName, owner), plainName + " released by " + owner);
                        churned.incrementAndGet();
                        if (killedShard) {
                            churnedOnKilledShard.incrementAndGet();
                        }
                    }
                });
            }
        }

        private void extend() {
            while (running.get()) {
                for (String name : held) {
                    if (!onKilledShard.test(slot(name))) {
                        timed(name, () -> {
                            if (safe.extend(name, "first", TTL)) {
                                extended.incrementAndGet();
                            } else {
                                elsewhere.add("extension of " + name + " refused");
                            }
                        });
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private void timed(String name, Runnable call) {
            long began = System.nanoTime();
            try {
                call.run();
            } catch (LockStoreUnavailableException e) {
                if (onKilledShard.test(slot(name))) {
                    unavailable.incrementAndGet();
                } else {
                    elsewhere.add(name + ": " + e.getMessage());
                }
            } catch (RuntimeException | AssertionError e) {
                unexpected.add(e);
            }
            slowest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), Math::max);
        }
    }

    private static RedisLockStore store(String storeName, int minReplicas) {
        return RedisLockStore.builder()
                .clusterNodes(List.of(
                        new HostAndPort(RedisServers.HOST, PORTS[0]), new HostAndPort(RedisServers.HOST, PORTS[1])))
                .storeName(storeName)
                .connectTimeout(TIMEOUT)
                .socketTimeout(TIMEOUT)
                .minReplicas(minReplicas)
                .replicaTimeout(REPLICA_TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }

    /** @return {@code count} names starting with {@code prefix}, spread evenly over the masters' slot ranges */
    private static List<String> names(String prefix, int count, Map<Integer, int[]> masters) {
        List<int[]> ranges = new ArrayList<>(masters.values());
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            String name = prefix + i;
            int[] range = ranges.get(names.size() % ranges.size());
            int slot = slot(name);
            if (slot >= range[0] && slot <= range[1]) {
                names.add(name);
            }
        }
        return names;
    }

    private static int slot(String name) {
        return JedisClusterCRC16.getSlot(RedisKeys.lockKey(name));
    }

    /** @return the masters that own slots now, by port, with their slot range, as a live node reports them */
    private static Map<Integer, int[]> masters() {
        for (int port : PORTS) {
            try (Jedis jedis = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                Map<Integer, int[]> masters = new LinkedHashMap<>();
                for (String line : jedis.clusterNodes().split("\n")) {
                    String[] fields = line.trim().split(" ");
                    if (fields.length > 8 && fields[2].contains("master") && !fields[2].contains("fail")) {
                        String address = fields[1].substring(0, fields[1].indexOf('@'));
                        String[] range = fields[8].split("-");
                        masters.put(
                                Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)),
                                new int[] {Integer.parseInt(range[0]), Integer.parseInt(range[1])});
                    }
                }
                return masters;
            } catch (RuntimeException e) {
                // that node is down: ask the next
            }
        }
        return Map.of();
    }

    /** @return how many nodes are replicas whose link to their master is up */
    private static int replicasInSync() {
        int inSync = 0;
        for (int port : PORTS) {
            try (Jedis jedis = new Jedis(new HostAndPort(RedisServers.HOST, port))) {
                inSync += jedis.info("replication").contains("master_link_status:up") ? 1 : 0;
            } catch (RuntimeException e) {
                // not up (yet)
            }
        }
        return inSync;
    }
}

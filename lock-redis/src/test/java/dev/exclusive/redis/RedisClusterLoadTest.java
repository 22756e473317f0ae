package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Load on a 3-master Redis Cluster that the test starts on ports 7501-7503: worker JVMs ({@link LoadWorker}) take
 * and free distinct names as fast as they can while 8 threads of two store instances in this JVM contend on 10 hot
 * names, all in the first master's slots. It prints acquisitions per second, release messages per release, Redis
 * CPU per 10,000 store calls and memory before, after and after the retention, and asserts the bounds: the
 * distinct names publish nothing (no message on the two masters without hot names), a hot release publishes at
 * most once, and once the retention has passed no key is left and memory is back within 256 KiB of where it
 * stood before. "Before" is after a first, identical burst has expired: Redis keeps the size its hash tables grew
 * to (about 25 bytes per key at the peak, whatever the names), so a fresh cluster is not the level memory returns
 * to; a second burst shows that nothing accumulates per name.
 *
 * <p>CI size: 2 JVMs × 20,000 names. Full size, {@code -Dexclusive.load.full=true}: 4 JVMs × 250,000 names.
 */
class RedisClusterLoadTest {

    private static final int[] PORTS = {7501, 7502, 7503};
    private static final String NODES = "127.0.0.1:7501,127.0.0.1:7502,127.0.0.1:7503";
    private static final boolean FULL = Boolean.getBoolean("exclusive.load.full");
    private static final int JVMS = FULL ? 4 : 2;
    private static final int NAMES_PER_JVM = FULL ? 250_000 : 20_000;
    private static final int THREADS_PER_JVM = 4;
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final String RETENTION = "2s";
    private static final int HOT_NAMES = 10;
    private static final int HOT_THREADS = 8;
    /** How far above its level before a burst used_memory may stay once every key expired. */
    private static final long MEMORY_SLACK = 256 * 1024;

    private static final Pattern RESULT = Pattern.compile("released=(\\d+) failed=(\\d+) nanos=(\\d+)");

    private static Path folder;

    @TempDir
    Path logs;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-load");
        RedisServers.startCluster(folder, PORTS);
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORTS);
    }

    @Test
    void distinctNamesPublishNothingHotReleasesAtMostOnceAndMemoryReturnsAfterTheRetention() throws Exception {
        long memoryFresh = usedMemory();
        burst("warm-");
        RedisServers.awaitTrue(() -> keys() == 0, Duration.ofSeconds(60), "the first burst's keys to expire");
        long memoryBefore = usedMemory();
        double cpuBefore = cpuSeconds();
        long[] publishesBefore = publishes();
        Hot hot = new Hot();
        long began = System.nanoTime();
        long released = burst("load-");
        long wall = System.nanoTime() - began;
        hot.stop();
        long memoryAfter = usedMemory();
        double cpu = cpuSeconds() - cpuBefore;
        long keysAfter = keys();
        long[] publishesAfter = publishes();
        RedisServers.awaitTrue(() -> keys() == 0, Duration.ofSeconds(60), "every key to expire after the retention");
        long memoryRetained = usedMemory();

        long hotReleases = hot.released.get();
        long calls = 2 * (released + hotReleases);
        long hotPublishes = publishesAfter[0] - publishesBefore[0];
        System.out.printf(
                "Cluster load (%d JVMs x %d names, %d hot threads on %d names): %d names in %.1f s = %.0f"
                        + " acquisitions/s, hot %d releases (%.0f/s); release messages per hot release %.3f (%d),"
                        + " on the other masters %d and %d; Redis CPU %.2f s = %.3f s per 10k calls; used_memory"
                        + " %d on the fresh cluster, %d after a first burst expired, %d after this one (%d keys left),"
                        + " %d after the retention; load %.1f%n",
                JVMS,
                NAMES_PER_JVM,
                HOT_THREADS,
                HOT_NAMES,
                released,
                wall / 1e9,
                released * 1e9 / wall,
                hotReleases,
                hotReleases * 1e9 / wall,
                hotPublishes / (double) hotReleases,
                hotPublishes,
                publishesAfter[1] - publishesBefore[1],
                publishesAfter[2] - publishesBefore[2],
                cpu,
                cpu / (calls / 10_000.0),
                memoryFresh,
                memoryBefore,
                memoryAfter,
                keysAfter,
                memoryRetained,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());

        assertTrue(hot.unexpected.isEmpty(), "hot threads failed: " + hot.unexpected);
        assertEquals(0, publishesAfter[1] - publishesBefore[1], "distinct names published on 7502");
        assertEquals(0, publishesAfter[2] - publishesBefore[2], "distinct names published on 7503");
        assertTrue(hotPublishes > 0, "the hot names were waited on across instances, and published");
        assertTrue(hotPublishes <= hotReleases, hotPublishes + " messages for " + hotReleases + " hot releases");
        assertTrue(
                memoryRetained - memoryBefore <= MEMORY_SLACK,
                "used_memory back within " + MEMORY_SLACK + " bytes of the " + memoryBefore + " it stood at after the"
                        + " first burst expired: " + memoryRetained);
    }

    /**
     * Runs the worker JVMs on names under {@code prefix} until each took and freed all of its names.
     *
     * @return names released, over every worker
     */
    private long burst(String prefix) throws IOException, InterruptedException {
        List<Process> workers = startWorkers(prefix);
        long released = 0;
        try {
            for (int i = 0; i < workers.size(); i++) {
                Process worker = workers.get(i);
                assertTrue(worker.waitFor(FULL ? 1_800 : 120, TimeUnit.SECONDS), "worker " + i + " did not finish");
                String log = Files.readString(logs.resolve(prefix + i + ".log"));
                assertEquals(0, worker.exitValue(), "worker " + i + " failed: " + log);
                Matcher result = RESULT.matcher(log);
                assertTrue(result.find(), "worker " + i + " printed no result: " + log);
                assertEquals(NAMES_PER_JVM, Long.parseLong(result.group(1)), "worker " + i + ": " + log);
                assertEquals(0, Long.parseLong(result.group(2)), "worker " + i + " failed some names: " + log);
                released += Long.parseLong(result.group(1));
            }
        } finally {
            workers.forEach(Process::destroyForcibly);
        }
        return released;
    }

    private List<Process> startWorkers(String prefix) throws IOException {
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < JVMS; i++) {
            workers.add(RedisServers.startJvm(
                    LoadWorker.class,
                    logs.resolve(prefix + i + ".log"),
                    NODES,
                    prefix + i + ":",
                    Integer.toString(NAMES_PER_JVM),
                    Integer.toString(THREADS_PER_JVM),
                    Long.toString(TTL.toMillis()),
                    RETENTION));
        }
        return workers;
    }

    /** 8 threads of two store instances contending on 10 names in the first master's slots (0-5460). */
    private static final class Hot {
        final AtomicLong released = new AtomicLong();
        final List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<LockRegistry> registries = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();

        Hot() {
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < HOT_NAMES; i++) {
                if (JedisClusterCRC16.getSlot(RedisKeys.lockKey("hot:" + i)) < 5461) {
                    names.add("hot:" + i);
                }
            }
            for (int r = 0; r < 2; r++) {
                registries.add(LockRegistry.builder()
                        .store("hot", "redis", Map.of("nodes", NODES, "retention", RETENTION))
                        .build());
            }
            for (int t = 0; t < HOT_THREADS; t++) {
                LockRegistry registry = registries.get(t % 2);
                Thread thread = new Thread(() -> contend(registry, names), "hot-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        private void contend(LockRegistry registry, List<String> names) {
            while (running.get()) {
                try {
                    Lock lock = registry.lock(
                            names.get(ThreadLocalRandom.current().nextInt(names.size())), Duration.ofSeconds(5));
                    if (lock.block(Duration.ofSeconds(5))) {
                        Thread.sleep(1); // the work under the lock
                        if (lock.release()) {
                            released.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    unexpected.add(e);
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            registries.forEach(LockRegistry::close);
        }
    }

    private static long usedMemory() {
        long sum = 0;
        for (int port : PORTS) {
            sum += RedisInfo.usedMemory(port);
        }
        return sum;
    }

    private static double cpuSeconds() {
        double sum = 0;
        for (int port : PORTS) {
            sum += RedisInfo.cpuSeconds(port);
        }
        return sum;
    }

    private static long keys() {
        long sum = 0;
        for (int port : PORTS) {
            sum += RedisInfo.keys(port);
        }
        return sum;
    }

    private static long[] publishes() {
        long[] counts = new long[PORTS.length];
        for (int i = 0; i < PORTS.length; i++) {
            counts[i] = RedisInfo.publishes(PORTS[i]);
        }
        return counts;
    }
}

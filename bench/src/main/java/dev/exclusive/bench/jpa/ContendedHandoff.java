package dev.exclusive.bench.jpa;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Eight threads contend for one lock through the jpa store, each holding it for a moment (a few microseconds of
 * work) and then queueing again. Prints acquisitions per second and the handoff time (release by one holder to
 * acquisition by the next) at p50 and p99, per database. Half the threads use a second store over the same
 * factory, as a second server in this JVM would.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.jpa.ContendedHandoff [seconds]}
 */
public final class ContendedHandoff {

    private static final int THREADS = 8;

    private ContendedHandoff() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        for (BenchDatabase database : BenchDatabase.values()) {
            run(database, Duration.ofSeconds(seconds));
        }
    }

    private static void run(BenchDatabase database, Duration length) throws Exception {
        EntityManagerFactory factory = database.factory();
        try (factory;
                LockRegistry first = LockRegistry.builder()
                        .store(
                                "db",
                                JpaLockStore.builder(factory).createTable(true).build())
                        .build();
                LockRegistry second = LockRegistry.builder()
                        .store(
                                "db",
                                JpaLockStore.builder(factory).createTable(true).build())
                        .build()) {
            String name = "handoff:" + UUID.randomUUID();
            AtomicLong releasedAt = new AtomicLong();
            long[][] handoffs = new long[THREADS][];
            int[] counts = new int[THREADS];
            long end = System.nanoTime() + length.toNanos();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int index = t;
                LockRegistry registry = t % 2 == 0 ? first : second;
                handoffs[t] = new long[1 << 20];
                Thread thread = new Thread(
                        () -> {
                            try {
                                start.await();
                                while (System.nanoTime() < end) {
                                    Lock lock = registry.lock(name, Duration.ofSeconds(30));
                                    if (!lock.block(Duration.ofSeconds(30))) {
                                        throw new IllegalStateException("waited 30 s");
                                    }
                                    long acquired = System.nanoTime();
                                    long previous = releasedAt.get();
                                    if (previous != 0 && counts[index] < handoffs[index].length) {
                                        handoffs[index][counts[index]++] = acquired - previous;
                                    }
                                    releasedAt.set(System.nanoTime());
                                    if (!lock.release()) {
                                        throw new IllegalStateException("lost the lock");
                                    }
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "contender-" + t);
                threads.add(thread);
                thread.start();
            }
            long began = System.nanoTime();
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            double took = (System.nanoTime() - began) / 1e9;
            long[] all = new long[Arrays.stream(counts).sum()];
            int at = 0;
            for (int t = 0; t < THREADS; t++) {
                System.arraycopy(handoffs[t], 0, all, at, counts[t]);
                at += counts[t];
            }
            Arrays.sort(all);
            System.out.printf(
                    "%-10s %d threads: %,.0f acquisitions/s, handoff p50 %.2f ms, p99 %.2f ms (%d handoffs)%n",
                    database,
                    THREADS,
                    (all.length + 1) / took,
                    percentile(all, 0.50) / 1e6,
                    percentile(all, 0.99) / 1e6,
                    all.length);
        }
    }

    private static double percentile(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))];
    }
}

package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.UUID;

/**
 * The single-thread comparison of {@link JpaAcquireReleaseBenchmark}, paired: each round runs 500 acquire+release
 * through the jpa store and then 500 through raw JDBC, so that load from other processes on a shared machine hits
 * both alike; prints the ratio per round and the median ratio, per database.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.jpa.PairedAcquireRelease [rounds]}
 */
public final class PairedAcquireRelease {

    private static final LockHolder HOLDER = new LockHolder("bench", "main", "PairedAcquireRelease");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int OPS = 500;

    private PairedAcquireRelease() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        for (BenchDatabase database : BenchDatabase.values()) {
            EntityManagerFactory factory = database.factory();
            try (factory;
                    JpaLockStore store =
                            JpaLockStore.builder(factory).createTable(true).build();
                    RawJdbcLocks raw = new RawJdbcLocks(database)) {
                String name = "paired:" + UUID.randomUUID();
                String owner = UUID.randomUUID().toString();
                double[] ratios = new double[rounds];
                for (int round = -2; round < rounds; round++) { // two warm-up rounds
                    long start = System.nanoTime();
                    for (int i = 0; i < OPS; i++) {
                        if (!store.tryAcquire(name, owner, HOLDER, TTL).acquired() || !store.release(name, owner)) {
                            throw new IllegalStateException("uncontended acquire+release failed");
                        }
                    }
                    long jpa = System.nanoTime() - start;
                    start = System.nanoTime();
                    for (int i = 0; i < OPS; i++) {
                        if (raw.acquire(name, owner, HOLDER.encode(), TTL.toMillis()) < 0
                                || !raw.release(name, owner)) {
                            throw new IllegalStateException("uncontended acquire+release failed");
                        }
                    }
                    long jdbc = System.nanoTime() - start;
                    if (round >= 0) {
                        ratios[round] = (double) jdbc / jpa;
                        System.out.printf(
                                "%-10s round %d: jpa store %,.0f ops/s, raw JDBC %,.0f ops/s, ratio %.2f%n",
                                database, round, OPS / (jpa / 1e9), OPS / (jdbc / 1e9), ratios[round]);
                    }
                }
                java.util.Arrays.sort(ratios);
                System.out.printf("%-10s median ratio jpa store / raw JDBC: %.2f%n", database, ratios[rounds / 2]);
            }
        }
    }
}

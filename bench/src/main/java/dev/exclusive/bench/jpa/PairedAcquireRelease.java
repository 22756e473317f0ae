package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.UUID;

/**
 * The single-thread comparison of {@link JpaAcquireReleaseBenchmark}, paired: each round runs 500 acquire+release
 * through the jpa store and 500 through the floor ({@link RawJdbcLocks}), alternating in batches of 20, so that load
 * from other processes on a shared machine hits both alike; prints the ratio per round and the median ratio, per database.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.jpa.PairedAcquireRelease [rounds]
 * [POSTGRESQL|MARIADB]}
 */
public final class PairedAcquireRelease {

    private static final LockHolder HOLDER = new LockHolder("bench", "main", "PairedAcquireRelease");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int BATCH = 20;
    private static final int BATCHES = 25;
    private static final int OPS = BATCH * BATCHES;

    private PairedAcquireRelease() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        for (BenchDatabase database : BenchDatabase.values()) {
            if (args.length > 1 && !database.name().equalsIgnoreCase(args[1])) {
                continue;
            }
            EntityManagerFactory factory = database.factory();
            try (factory;
                    JpaLockStore store =
                            JpaLockStore.builder(factory).createTable(true).build();
                    RawJdbcLocks raw = new RawJdbcLocks(database)) {
                String name = "paired:" + UUID.randomUUID();
                String owner = UUID.randomUUID().toString();
                double[] ratios = new double[rounds];
                for (int round = -2; round < rounds; round++) { // two warm-up rounds
                    long jpa = 0;
                    long floor = 0;
                    for (int batch = 0; batch < BATCHES; batch++) {
                        long start = System.nanoTime();
                        for (int i = 0; i < BATCH; i++) {
                            if (!store.tryAcquire(name, owner, HOLDER, TTL).acquired() || !store.release(name, owner)) {
                                throw new IllegalStateException("uncontended acquire+release failed");
                            }
                        }
                        long middle = System.nanoTime();
                        for (int i = 0; i < BATCH; i++) {
                            if (!raw.acquire(name, owner, TTL.toMillis()) || !raw.release(name, owner)) {
                                throw new IllegalStateException("uncontended acquire+release failed");
                            }
                        }
                        jpa += middle - start;
                        floor += System.nanoTime() - middle;
                    }
                    if (round >= 0) {
                        ratios[round] = (double) floor / jpa;
                        System.out.printf(
                                "%-10s round %d: jpa store %,.0f ops/s, floor %,.0f ops/s, ratio %.2f%n",
                                database, round, OPS / (jpa / 1e9), OPS / (floor / 1e9), ratios[round]);
                    }
                }
                java.util.Arrays.sort(ratios);
                System.out.printf(
                        "%-10s median ratio jpa store / floor: %.2f (range %.2f-%.2f)%n",
                        database, ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
            }
        }
    }
}

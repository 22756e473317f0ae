package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The single-thread comparison of {@link JpaAcquireReleaseBenchmark}, paired: each round runs 500 acquire+release
 * through the jpa store, 500 through the floor ({@link RawJdbcLocks}) and 500 through the fenced floor
 * ({@link RawJdbcLocks#fenced}), alternating in batches of 20, each subject first in turn, so that load from other
 * processes on a shared machine hits them alike; prints the ratios per round and their medians, per database. The
 * store against the floor is the target's ratio; the store against the fenced floor says how far it is from the
 * closest design with its guarantees.
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

    /** One acquire+release of one subject. */
    private interface Batch {
        void pair() throws Exception;
    }

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
                    RawJdbcLocks raw = new RawJdbcLocks(database);
                    RawJdbcLocks fenced = RawJdbcLocks.fenced(database)) {
                String name = "paired:" + UUID.randomUUID();
                String owner = UUID.randomUUID().toString();
                double[] ratios = new double[rounds];
                double[] toFenced = new double[rounds];
                double[] fencedCost = new double[rounds];
                List<Batch> subjects = List.of(
                        () -> {
                            if (!store.tryAcquire(name, owner, HOLDER, TTL).acquired() || !store.release(name, owner)) {
                                throw new IllegalStateException("uncontended acquire+release failed");
                            }
                        },
                        () -> {
                            if (!raw.acquire(name, owner, TTL.toMillis()) || !raw.release(name, owner)) {
                                throw new IllegalStateException("uncontended acquire+release failed");
                            }
                        },
                        () -> {
                            if (!fenced.acquire(name, owner, TTL.toMillis()) || !fenced.release(name, owner)) {
                                throw new IllegalStateException("uncontended fenced acquire+release failed");
                            }
                        });
                for (int round = -2; round < rounds; round++) { // two warm-up rounds
                    long[] nanos = new long[3];
                    for (int batch = 0; batch < BATCHES; batch++) {
                        for (int k = 0; k < subjects.size(); k++) {
                            int subject = (batch + k) % subjects.size(); // each goes first in turn
                            long start = System.nanoTime();
                            for (int i = 0; i < BATCH; i++) {
                                subjects.get(subject).pair();
                            }
                            nanos[subject] += System.nanoTime() - start;
                        }
                    }
                    long jpa = nanos[0];
                    long floor = nanos[1];
                    long fencedFloor = nanos[2];
                    if (round >= 0) {
                        ratios[round] = (double) floor / jpa;
                        toFenced[round] = (double) fencedFloor / jpa;
                        fencedCost[round] = (double) floor / fencedFloor;
                        System.out.printf(
                                "%-10s round %d: jpa store %,.0f ops/s, floor %,.0f ops/s, ratio %.2f; fenced floor"
                                        + " %,.0f ops/s (%.2f of the floor), store / fenced floor %.2f%n",
                                database,
                                round,
                                OPS / (jpa / 1e9),
                                OPS / (floor / 1e9),
                                ratios[round],
                                OPS / (fencedFloor / 1e9),
                                fencedCost[round],
                                toFenced[round]);
                    }
                }
                java.util.Arrays.sort(ratios);
                java.util.Arrays.sort(toFenced);
                java.util.Arrays.sort(fencedCost);
                System.out.printf(
                        "%-10s median ratio jpa store / floor: %.2f (range %.2f-%.2f)%n",
                        database, ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
                System.out.printf(
                        "%-10s fenced floor / floor: %.2f (range %.2f-%.2f); jpa store / fenced floor: %.2f"
                                + " (range %.2f-%.2f)%n",
                        database,
                        fencedCost[rounds / 2],
                        fencedCost[0],
                        fencedCost[rounds - 1],
                        toFenced[rounds / 2],
                        toFenced[0],
                        toFenced[rounds - 1]);
            }
        }
    }
}

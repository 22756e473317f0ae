package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.bench.BalancedOrders;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The single-thread comparison of {@link JpaAcquireReleaseBenchmark}, paired: each round runs 500 acquire+release
 * through the jpa store, 500 through the floor ({@link RawJdbcLocks}), 500 through the fenced floor
 * ({@link RawJdbcLocks#fenced}) and, on PostgreSQL, 500 through the floor whose release does not wait for its flush
 * ({@link RawJdbcLocks#unflushedRelease}), alternating in batches of 20, in orders where each subject goes first and
 * follows each other one equally often ({@link BalancedOrders}), so that load from other processes on a shared machine
 * hits them alike; prints the ratios per round and their medians, per database. The store against the floor is the
 * target's ratio; the store against the fenced floor says how far it is from the closest design with its guarantees;
 * and against the unflushed floor, how far it is from the least work of a lock that makes the store's own trade on
 * PostgreSQL (a release that a database crash may undo).
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
    private static final int WARM_UP_ROUNDS = 10;

    private PairedAcquireRelease() {}

    /** One acquire+release of one subject. */
    private interface Pair {
        void run() throws Exception;
    }

    /** What is measured, under the name its ratios print. */
    private record Subject(String label, Pair pair) {}

    /** A ratio printed per round and as a median: the time of {@code reference} over that of {@code measured}. */
    private record Ratio(String label, int measured, int reference) {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        for (BenchDatabase database : BenchDatabase.values()) {
            if (args.length > 1 && !database.name().equalsIgnoreCase(args[1])) {
                continue;
            }
            boolean postgres = database == BenchDatabase.POSTGRESQL;
            EntityManagerFactory factory = database.factory();
            try (factory;
                    JpaLockStore store =
                            JpaLockStore.builder(factory).createTable(true).build();
                    RawJdbcLocks raw = new RawJdbcLocks(database);
                    RawJdbcLocks fenced = RawJdbcLocks.fenced(database);
                    RawJdbcLocks unflushed = postgres ? RawJdbcLocks.unflushedRelease(database) : null) {
                String name = "paired:" + UUID.randomUUID();
                String owner = UUID.randomUUID().toString();
                List<Subject> subjects = new ArrayList<>(List.of(
                        new Subject("jpa store", () -> {
                            if (!store.tryAcquire(name, owner, HOLDER, TTL).acquired() || !store.release(name, owner)) {
                                throw new IllegalStateException("uncontended acquire+release failed");
                            }
                        }),
                        new Subject("floor", floor(raw, name, owner)),
                        new Subject("fenced floor", floor(fenced, name, owner))));
                List<Ratio> ratios = new ArrayList<>(List.of(
                        new Ratio("jpa store / floor", 0, 1),
                        new Ratio("fenced floor / floor", 2, 1),
                        new Ratio("jpa store / fenced floor", 0, 2)));
                if (postgres) {
                    subjects.add(new Subject("unflushed-release floor", floor(unflushed, name, owner)));
                    ratios.add(new Ratio("unflushed-release floor / floor", 3, 1));
                    ratios.add(new Ratio("jpa store / unflushed-release floor", 0, 3));
                }
                run(database, rounds, subjects, ratios);
            }
        }
    }

    private static Pair floor(RawJdbcLocks floor, String name, String owner) {
        return () -> {
            if (!floor.acquire(name, owner, TTL.toMillis()) || !floor.release(name, owner)) {
                throw new IllegalStateException("uncontended acquire+release failed");
            }
        };
    }

    private static void run(BenchDatabase database, int rounds, List<Subject> subjects, List<Ratio> ratios)
            throws Exception {
        double[][] perRound = new double[ratios.size()][rounds];
        List<int[]> orders = BalancedOrders.of(subjects.size());
        int batches = 0;
        // Ten rounds of warm-up (5,000 pairs of each subject): the store runs more of its own code per pair than
        // the floors, which the JIT compiles fully only after several thousand calls; in the first two thousand pairs
        // its client CPU was 2-3 times its steady state, so fewer rounds would measure the warm-up, not the store
        for (int round = -WARM_UP_ROUNDS; round < rounds; round++) {
            long[] nanos = new long[subjects.size()];
            for (int batch = 0; batch < BATCHES; batch++) {
                for (int subject : orders.get(batches++ % orders.size())) {
                    long start = System.nanoTime();
                    for (int i = 0; i < BATCH; i++) {
                        subjects.get(subject).pair().run();
                    }
                    nanos[subject] += System.nanoTime() - start;
                }
            }
            if (round < 0) {
                continue;
            }
            StringBuilder line = new StringBuilder(String.format("%-10s round %d:", database, round));
            for (int k = 0; k < subjects.size(); k++) {
                line.append(String.format(" %s %,.0f ops/s;", subjects.get(k).label(), OPS / (nanos[k] / 1e9)));
            }
            for (int r = 0; r < ratios.size(); r++) {
                Ratio ratio = ratios.get(r);
                perRound[r][round] = (double) nanos[ratio.reference()] / nanos[ratio.measured()];
                line.append(String.format(" %s %.2f;", ratio.label(), perRound[r][round]));
            }
            System.out.println(line);
        }
        for (int r = 0; r < ratios.size(); r++) {
            double[] sorted = perRound[r].clone();
            Arrays.sort(sorted);
            System.out.printf(
                    "%-10s median %s: %.2f (range %.2f-%.2f)%n",
                    database, ratios.get(r).label(), sorted[rounds / 2], sorted[0], sorted[rounds - 1]);
        }
    }
}

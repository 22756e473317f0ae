package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

/**
 * Whether the jpa store slows down as its table churns, on PostgreSQL with autovacuum off for the table: one thread
 * runs acquire+release cycles over a fixed set of names and prints the rate of each window of 10,000 cycles, the
 * last window against the first, and then the rate of one more window after {@code VACUUM FULL} (a fresh table,
 * measured in the same run). Also prints how many of the table's updates were HOT (no new index entry), its dead
 * rows and its size. Target: the last window at 0.8x the first or better.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.jpa.ChurnDecay [cycles] [names]}
 * (default 1,000,000 cycles over 1,000 names).
 */
public final class ChurnDecay {

    private static final LockHolder HOLDER = new LockHolder("bench", "main", "ChurnDecay");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String TABLE = "bench_churn_lock";
    private static final int WINDOW = 10_000;

    private ChurnDecay() {}

    public static void main(String[] args) throws Exception {
        long cycles = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int names = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        BenchDatabase database = BenchDatabase.POSTGRESQL;
        execute(database, "DROP TABLE IF EXISTS " + TABLE);
        EntityManagerFactory factory = database.factory();
        try (factory;
                JpaLockStore store = JpaLockStore.builder(factory)
                        .storeName("churn")
                        .table(TABLE)
                        .createTable(true)
                        .build()) {
            String owner = UUID.randomUUID().toString();
            store.inspect("churn:setup"); // creates the table
            execute(database, "ALTER TABLE " + TABLE + " SET (autovacuum_enabled = false)");
            System.out.printf("%,d cycles over %,d names, autovacuum off for %s%n", cycles, names, TABLE);
            double first = 0;
            double last = 0;
            long started = System.nanoTime();
            long windowStart = started;
            for (long i = 1; i <= cycles; i++) {
                cycle(store, "churn:" + (i % names), owner);
                if (i % WINDOW == 0) {
                    long now = System.nanoTime();
                    last = WINDOW / ((now - windowStart) / 1e9);
                    if (i == WINDOW) {
                        first = last;
                    }
                    if (i == WINDOW || i % (10 * WINDOW) == 0 || i == cycles) {
                        System.out.printf(
                                "after %,9d cycles: %,7.0f cycles/s in the last %,d (%.0f s so far) %s%n",
                                i, last, WINDOW, (now - started) / 1e9, tableStats(database));
                    }
                    windowStart = now;
                }
            }
            System.out.printf("last window / first window: %.2f%n", last / first);
            execute(database, "VACUUM FULL " + TABLE);
            long start = System.nanoTime();
            for (long i = 1; i <= WINDOW; i++) {
                cycle(store, "churn:" + (i % names), owner);
            }
            double fresh = WINDOW / ((System.nanoTime() - start) / 1e9);
            System.out.printf(
                    "after VACUUM FULL: %,.0f cycles/s; last window before it / after it: %.2f%n", fresh, last / fresh);
        }
    }

    private static void cycle(JpaLockStore store, String name, String owner) {
        if (!store.tryAcquire(name, owner, HOLDER, TTL).acquired() || !store.release(name, owner)) {
            throw new IllegalStateException("uncontended acquire+release failed on " + name);
        }
    }

    private static String tableStats(BenchDatabase database) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup,"
                        + " pg_size_pretty(pg_relation_size(relid)), pg_size_pretty(pg_indexes_size(relid))"
                        + " FROM pg_stat_user_tables WHERE relname = '" + TABLE + "'")) {
            if (!row.next()) {
                return "";
            }
            return String.format(
                    "[updates %,d, HOT %,d, dead rows %,d, table %s, indexes %s]",
                    row.getLong(1), row.getLong(2), row.getLong(3), row.getString(4), row.getString(5));
        }
    }

    private static void execute(BenchDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}

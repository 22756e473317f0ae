package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What the PostgreSQL tests wait for: a statement blocked on a lock in the server, or a condition of their own. */
final class PostgresWaits {

    private PostgresWaits() {}

    /** @return how many statements of other sessions wait for a lock now whose text contains every fragment */
    static int blocked(String... fragments) {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
        for (String fragment : fragments) {
            sql.append(" AND query LIKE '%").append(fragment).append("%'");
        }
        sql.append(" AND pid <> pg_backend_pid()");
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql.toString())) {
            rows.next();
            return rows.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Polls {@code condition} every 10 ms for up to 10 s; fails the test, naming {@code what}, if it stays false. */
    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 10 s: " + what);
            Thread.sleep(10); // a poll until the deadline: there is nothing to be notified by
        }
    }
}

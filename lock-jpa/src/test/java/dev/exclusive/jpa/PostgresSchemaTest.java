package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On PostgreSQL acquire and release update the row in place (HOT), so the table does not grow with churn; a table
 * of the previous version, with its index on {@code expires_at}, keeps working, and loses the index to a store
 * allowed to create the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresSchemaTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");

    private EntityManagerFactory factory;

    @BeforeAll
    void openFactory() {
        TestDatabase.POSTGRES.assumeAvailable();
        factory = TestDatabase.POSTGRES.open();
    }

    @AfterAll
    void closeFactory() {
        if (factory != null) {
            factory.close();
        }
    }

    @Test
    void acquireAndReleaseAreHotUpdates() throws Exception {
        String table = "exclusive_lock_hot";
        TestDatabase.POSTGRES.dropTable(table);
        try (JpaLockStore store =
                JpaLockStore.builder(factory).table(table).createTable(true).build()) {
            for (int i = 0; i < 200; i++) {
                assertTrue(store.tryAcquire("hot-" + i % 5, "a", HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("hot-" + i % 5, "a"));
            }
        }
        // The statistics arrive when the pool's backends report them (at most every 10 s when idle): poll for them.
        long[] updates = new long[2];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do {
            Thread.sleep(200);
            updates = updates(table);
        } while (updates[0] < 395 && System.nanoTime() < deadline);
        assertTrue(updates[0] >= 395, "the statistics show the updates: " + updates[0]);
        assertTrue(
                updates[1] >= 0.9 * updates[0],
                updates[1] + " of " + updates[0] + " updates were HOT; every acquire and release should be");
    }

    @Test
    void aTableOfThePreviousVersionWorksAndGainsTheMarkColumnAndLosesItsExpiryIndexToAStoreThatMayCreateTheTable()
            throws Exception {
        String table = "exclusive_lock_previous";
        TestDatabase.POSTGRES.dropTable(table);
        AbstractJpaLockStoreTest.execute(
                TestDatabase.POSTGRES,
                "CREATE TABLE " + table + " (name VARCHAR(255) COLLATE \"C\" NOT NULL PRIMARY KEY, owner VARCHAR(255),"
                        + " holder VARCHAR(1000), acquired_at TIMESTAMP WITH TIME ZONE NOT NULL, expires_at TIMESTAMP"
                        + " WITH TIME ZONE NOT NULL, fence BIGINT NOT NULL)");
        AbstractJpaLockStoreTest.execute(
                TestDatabase.POSTGRES, "CREATE INDEX " + table + "_expires_at ON " + table + " (expires_at)");
        AbstractJpaLockStoreTest.execute(
                TestDatabase.POSTGRES,
                "INSERT INTO " + table + " VALUES ('old', NULL, NULL, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 41)");

        try (JpaLockStore kept = JpaLockStore.builder(factory).table(table).build()) {
            assertTrue(
                    kept.tryAcquire("old", "a", HOLDER, Duration.ofSeconds(30)).acquired());
            assertTrue(kept.release("old", "a"));
        }
        assertEquals(1, indexes(table), "a store that may not create the table leaves its index (and warns)");
        assertEquals(0, markColumns(table), "a store that may not create the table leaves it as it is (and warns)");

        try (JpaLockStore migrating =
                JpaLockStore.builder(factory).table(table).createTable(true).build()) {
            assertTrue(migrating
                    .tryAcquire("old", "b", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertTrue(migrating.inspect("old").orElseThrow().fence() > 41, "the fence keeps growing");
        }
        assertEquals(0, indexes(table), "a store that may create the table drops the index on expires_at");
        assertEquals(1, markColumns(table), "and adds the column where waiters mark a lock");
    }

    /**
     * When the catalog query for the old index fails, nothing is known about the index: a DEBUG line, not the
     * WARNING that says the table has it. The sessions find a schema's {@code pg_indexes} that fails to read before
     * the catalog's ({@code search_path} lists {@code pg_catalog} last).
     */
    @Test
    void aFailedIndexCheckDoesNotWarnOfAnIndexThatIsNotThere() throws Exception {
        String table = "exclusive_lock_unchecked";
        TestDatabase.POSTGRES.dropTable(table);
        AbstractJpaLockStoreTest.execute(TestDatabase.POSTGRES, "DROP SCHEMA IF EXISTS unreadable_catalog CASCADE");
        AbstractJpaLockStoreTest.execute(TestDatabase.POSTGRES, "CREATE SCHEMA unreadable_catalog");
        AbstractJpaLockStoreTest.execute(
                TestDatabase.POSTGRES,
                "CREATE VIEW unreadable_catalog.pg_indexes AS SELECT schemaname, tablename, indexname FROM"
                        + " pg_catalog.pg_indexes"
                        + " WHERE 1 / (SELECT COUNT(*) FROM pg_catalog.pg_class WHERE false) = 1");
        LoggedWarnings warnings = LoggedWarnings.record(JpaLockStore.class.getName());
        EntityManagerFactory unreadable = TestDatabase.POSTGRES.open(Map.of(
                "jakarta.persistence.jdbc.url",
                TestDatabase.POSTGRES.url() + "&options=-c%20search_path=public,unreadable_catalog,pg_catalog"));
        try (warnings;
                unreadable;
                JpaLockStore store = JpaLockStore.builder(unreadable)
                        .table(table)
                        .createTable(true)
                        .build()) {
            assertTrue(store.tryAcquire("checked", "a", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertTrue(store.release("checked", "a"));
        } finally {
            AbstractJpaLockStoreTest.execute(TestDatabase.POSTGRES, "DROP SCHEMA unreadable_catalog CASCADE");
        }
        assertEquals(0, indexes(table));
        assertEquals(
                List.of(),
                warnings.messages(),
                "no index on expires_at to warn of, and the check's failure is no warning");
    }

    private static long[] updates(String table) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = '" + table + "'")) {
            return row.next() ? new long[] {row.getLong(1), row.getLong(2)} : new long[2];
        }
    }

    private static int markColumns(String table) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM information_schema.columns WHERE"
                        + " table_name = '" + table + "' AND column_name = 'waited_until'")) {
            row.next();
            return row.getInt(1);
        }
    }

    private static int indexes(String table) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM pg_indexes WHERE tablename = '" + table
                        + "' AND indexname = '" + table + "_expires_at'")) {
            row.next();
            return row.getInt(1);
        }
    }
}

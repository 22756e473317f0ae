package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On MariaDB the lock table has no index on {@code expires_at}, which every acquire and release changes; a table of
 * an earlier version keeps working with it and loses it to a store allowed to create the table. Without the index
 * the cleanup still locks only the rows it deletes, never a live row another transaction holds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbSchemaTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final TestDatabase DATABASE = TestDatabase.MARIADB;

    private EntityManagerFactory factory;

    @BeforeAll
    void openFactory() {
        DATABASE.assumeAvailable();
        factory = DATABASE.open();
    }

    @AfterAll
    void closeFactory() {
        if (factory != null) {
            factory.close();
        }
    }

    @Test
    void aTableTheStoreCreatesHasNoIndexOnExpiresAt() throws SQLException {
        String table = "exclusive_lock_unindexed";
        DATABASE.dropTable(table);
        try (JpaLockStore store =
                JpaLockStore.builder(factory).table(table).createTable(true).build()) {
            assertTrue(
                    store.tryAcquire("new", "a", HOLDER, Duration.ofSeconds(30)).acquired());
            assertTrue(store.release("new", "a"));
        }
        assertEquals(List.of("PRIMARY"), indexes(table), "the primary key alone");
    }

    @Test
    void aTableOfThePreviousVersionWorksAndLosesItsExpiryIndexToAStoreThatMayCreateTheTable() throws Exception {
        String table = "exclusive_lock_indexed";
        DATABASE.dropTable(table);
        AbstractJpaLockStoreTest.execute(
                DATABASE,
                "CREATE TABLE " + table + " (name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT"
                        + " NULL PRIMARY KEY, owner VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,"
                        + " holder VARCHAR(1000) CHARACTER SET utf8mb4, acquired_at DATETIME(6) NOT NULL, expires_at"
                        + " DATETIME(6) NOT NULL, fence BIGINT NOT NULL, INDEX " + table + "_expires_at"
                        + " (expires_at)) ENGINE=InnoDB");
        AbstractJpaLockStoreTest.execute(
                DATABASE,
                "INSERT INTO " + table + " VALUES ('old', NULL, NULL, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), 41)");

        LoggedWarnings warnings = LoggedWarnings.record(JpaLockStore.class.getName());
        try (warnings;
                JpaLockStore kept = JpaLockStore.builder(factory).table(table).build()) {
            assertTrue(
                    kept.tryAcquire("old", "a", HOLDER, Duration.ofSeconds(30)).acquired());
            assertTrue(kept.release("old", "a"));
        }
        assertEquals(
                List.of("PRIMARY", table + "_expires_at"),
                indexes(table),
                "a store that may not create the table leaves its index");
        assertEquals(1, warnings.messages().size(), "and warns: " + warnings.messages());
        assertTrue(
                warnings.messages().get(0).contains("ALTER TABLE " + table + " DROP INDEX " + table + "_expires_at"),
                "naming the statement that drops it: " + warnings.messages());

        try (JpaLockStore migrating =
                JpaLockStore.builder(factory).table(table).createTable(true).build()) {
            assertTrue(migrating
                    .tryAcquire("old", "b", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertTrue(migrating.inspect("old").orElseThrow().fence() > 41, "the fence keeps growing");
        }
        assertEquals(List.of("PRIMARY"), indexes(table), "a store that may create the table drops the index");
    }

    /**
     * A {@code DELETE} that scans the table would, in InnoDB's {@code REPEATABLE READ}, wait for the lock on every row
     * it reads, a live one included; the cleanup reads its candidates without locking and deletes them by name.
     */
    @Test
    void theCleanupDeletesUnusedRowsWithoutWaitingForALiveRowThatAnotherTransactionHolds() throws Exception {
        String table = "exclusive_lock_cleanup_scan";
        DATABASE.dropTable(table);
        try (JpaLockStore store = JpaLockStore.builder(factory)
                .table(table)
                .createTable(true)
                .retention(Duration.ofMillis(1))
                .timeout(Duration.ofSeconds(20))
                .build()) {
            int unused = Statements.CLEANUP_BATCH * 2 + 7; // more than one batch, and a short last one
            for (int i = 0; i < unused; i++) {
                assertTrue(store.tryAcquire("unused-" + i, "a", HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("unused-" + i, "a"));
            }
            assertTrue(store.tryAcquire("live", "a", HOLDER, Duration.ofSeconds(60))
                    .acquired());
            Thread.sleep(5); // past the retention of 1 ms
            try (Connection holding = DATABASE.holdingTheRow(table, "live")) {
                int deleted = assertTimeoutPreemptively(Duration.ofSeconds(10), store::cleanUp);
                assertEquals(unused, deleted, "every unused row, in batches, while the live one is held elsewhere");
                holding.commit();
            }
            assertEquals(1, rows(table), "the live row stays");
            assertTrue(store.release("live", "a"));
        }
    }

    private static List<String> indexes(String table) throws SQLException {
        try (Connection connection = DATABASE.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS"
                        + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "'")) {
            List<String> names = new java.util.ArrayList<>();
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            names.sort(null);
            return names;
        }
    }

    private static long rows(String table) throws SQLException {
        try (Connection connection = DATABASE.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }
}

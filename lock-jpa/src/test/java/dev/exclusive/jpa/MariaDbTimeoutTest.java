package dev.exclusive.jpa;

import static dev.exclusive.jpa.StatementBounds.HOLDER;
import static dev.exclusive.jpa.StatementBounds.TTL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.EntityManagerFactory;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On MariaDB the store's statements are bounded by the connection's network timeout alone: MariaDB Connector/J's query
 * timeout would make every statement a {@code SET STATEMENT max_statement_time=... FOR ...}, which the server pays
 * each time. A statement that waits for a row lock longer than the timeout still ends within it, and the next
 * operation works.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbTimeoutTest {

    private static final String TABLE = "exclusive_lock_mariadb_timeout";
    private static final TestDatabase DATABASE = TestDatabase.MARIADB;

    @BeforeAll
    void freshTable() throws SQLException {
        DATABASE.assumeAvailable();
        DATABASE.dropTable(TABLE);
    }

    @Test
    void theLockStatementsGetNoQueryTimeout() {
        RecordingProvider pool = new RecordingProvider(DATABASE, false);
        try (EntityManagerFactory factory = DATABASE.open(Map.of("hibernate.connection.provider_class", pool));
                JpaLockStore store = StatementBounds.store(factory, TABLE)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(
                        store.tryAcquire("bounded", "owner-" + i, HOLDER, TTL).acquired());
                assertTrue(store.release("bounded", "owner-" + i));
            }
            // the acquisitions (an INSERT) and releases (an UPDATE); the set-up's catalog queries go through Hibernate
            List<Integer> locking = pool.queryTimeoutsOn(TABLE, "INSERT ", "UPDATE ");
            assertEquals(List.of(), locking, "no acquire or release got a query timeout");
        }
    }

    @Test
    void aReleaseThatWaitsForARowLockLongerThanTheTimeoutIsUnavailableWithinIt() throws Exception {
        try (EntityManagerFactory factory = DATABASE.open();
                JpaLockStore store = StatementBounds.store(factory, TABLE)) {
            StatementBounds.releaseBehindALockedRow(DATABASE, store, TABLE);
        }
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.StatementBounds.BOUND;
import static dev.exclusive.jpa.StatementBounds.HOLDER;
import static dev.exclusive.jpa.StatementBounds.TTL;
import static dev.exclusive.jpa.StatementBounds.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.EntityManagerFactory;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A statement that gets no answer ends within the store's timeout as {@link LockStoreUnavailableException}, even
 * when the unit's JDBC URL sets no {@code socketTimeout}: on a connection whose network falls silent in the middle
 * of the conversation (where the driver's query cancel, which needs a new connection, cannot help), and on a row
 * lock that another transaction keeps. The next operation afterwards works, on a fresh connection of the pool.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresNetworkTimeoutTest {

    private static final String TABLE = "exclusive_lock_network";
    private static final TestDatabase DATABASE = TestDatabase.POSTGRES;

    @BeforeAll
    void freshTable() throws SQLException {
        DATABASE.assumeAvailable();
        DATABASE.dropTable(TABLE);
    }

    @Test
    void aNetworkThatFallsSilentOnAnOpenConnectionIsUnavailableWithinTheTimeout() throws Exception {
        try (SilencingProxy proxy = new SilencingProxy("127.0.0.1", 5432);
                EntityManagerFactory factory = TestDatabase.postgresThrough(proxy);
                JpaLockStore store = StatementBounds.store(factory, TABLE)) {
            try {
                silenceAndHeal(proxy, store);
            } finally {
                proxy.close(); // ends a read that still hangs, so that the store and its pool can close
            }
        }
    }

    private static void silenceAndHeal(SilencingProxy proxy, JpaLockStore store) {
        assertTrue(store.tryAcquire("silent", "a", HOLDER, TTL).acquired());
        assertTrue(store.release("silent", "a"));

        proxy.silence();
        within(() -> store.tryAcquire("silent", "a", HOLDER, TTL));
        within(() -> store.release("silent", "a"));
        within(store::ping);

        proxy.heal();
        assertTimeoutPreemptively(BOUND, () -> {
            assertTrue(store.tryAcquire("silent", "b", HOLDER, TTL).acquired());
            assertTrue(store.release("silent", "b"));
        });
    }

    @Test
    void aReleaseThatWaitsForARowLockLongerThanTheTimeoutIsUnavailableWithinIt() throws Exception {
        try (EntityManagerFactory factory = DATABASE.open(Map.of(
                        "jakarta.persistence.jdbc.url",
                        "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=2&loginTimeout=2"));
                JpaLockStore store = StatementBounds.store(factory, TABLE)) {
            StatementBounds.releaseBehindALockedRow(DATABASE, store, TABLE);
        }
    }
}

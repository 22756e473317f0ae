package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration BOUND = Duration.ofSeconds(8);
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
                JpaLockStore store = store(factory)) {
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
                JpaLockStore store = store(factory)) {
            assertTrue(store.tryAcquire("row", "a", HOLDER, TTL).acquired());
            try (Connection holding = DATABASE.holdingTheRow(TABLE, "row")) {
                long start = System.nanoTime();
                LockStoreUnavailableException e = assertTimeoutPreemptively(
                        Duration.ofSeconds(30),
                        () -> assertThrows(LockStoreUnavailableException.class, () -> store.release("row", "a")));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(took.compareTo(BOUND) < 0, "took " + took + ", more than " + BOUND);
                assertTrue(e.getMessage().contains("db") && e.getCause() != null, e.getMessage());
                holding.commit();
            }
            assertTimeoutPreemptively(BOUND, () -> {
                store.release("row", "a"); // freed now, or by the statement above once the row was let go
                assertTrue(store.tryAcquire("row", "b", HOLDER, TTL).acquired());
                assertTrue(store.release("row", "b"));
            });
        }
    }

    private static JpaLockStore store(EntityManagerFactory factory) {
        return JpaLockStore.builder(factory)
                .storeName("db")
                .table(TABLE)
                .createTable(true)
                .timeout(TIMEOUT)
                .build();
    }
}

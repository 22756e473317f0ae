package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * A statement that gets no answer ends within the store's timeout as {@link LockStoreUnavailableException}, even
 * when the unit's JDBC URL sets no {@code socketTimeout}: on a connection whose network falls silent in the middle
 * of the conversation (where the driver's query cancel, which needs a new connection, cannot help), and on a row
 * lock that another transaction keeps. The next operation afterwards works, on a fresh connection of the pool.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresNetworkTimeoutTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration BOUND = Duration.ofSeconds(8);
    private static final Duration HANG = Duration.ofSeconds(30);
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
                JpaLockStore store = store(factory)) {
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
                JpaLockStore store = store(factory)) {
            assertTrue(store.tryAcquire("row", "a", HOLDER, TTL).acquired());
            try (Connection holding = DATABASE.holdingTheRow(TABLE, "row")) {
                within(() -> store.release("row", "a"));
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

    /** Fails, rather than hanging the build, when {@code operation} does not end: after {@link #HANG}. */
    private static void within(Executable operation) {
        long start = System.nanoTime();
        LockStoreUnavailableException e =
                assertTimeoutPreemptively(HANG, () -> assertThrows(LockStoreUnavailableException.class, operation));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(BOUND) < 0, "took " + took + ", more than " + BOUND);
        assertTrue(e.getMessage().contains("db") && e.getCause() != null, e.getMessage());
    }
}

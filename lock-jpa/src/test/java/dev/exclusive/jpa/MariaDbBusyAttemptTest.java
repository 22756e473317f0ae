package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On MariaDB an attempt whose row another transaction holds waits for it and decides on the row as that transaction
 * left it: one that lost a freed row to another acquirer is told that acquirer's remaining time (not that no time
 * remains), and the owner's own retry keeps its hold and fence. A third connection plays the concurrent transaction,
 * holding the row uncommitted.
 *
 * <p>Unlike on PostgreSQL, an attempt on a lock live for another owner also waits for the row lock, since MariaDB's
 * upsert locks the row before it decides. A version that failed at once with a zero lock wait and then answered from
 * a plain read was tried and dropped: the MariaDB driver logs every such failure at WARN ("Lock wait timeout
 * exceeded"), 500 lines in one run of the store contract, and a one-statement alternative ({@code BEGIN NOT ATOMIC})
 * made an uncontended acquire+release 40-50 % slower.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbBusyAttemptTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_mariadb_busy";
    private static final Duration TTL = Duration.ofSeconds(60);

    private EntityManagerFactory factory;
    private JpaLockStore store;

    @BeforeAll
    void openStore() throws SQLException {
        TestDatabase.MARIADB.assumeAvailable();
        TestDatabase.MARIADB.dropTable(TABLE);
        factory = TestDatabase.MARIADB.open();
        store = JpaLockStore.builder(factory)
                .storeName("busy")
                .table(TABLE)
                .createTable(true)
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    @AfterAll
    void closeStore() {
        if (store != null) {
            store.close();
        }
        if (factory != null) {
            factory.close();
        }
    }

    @Test
    void anAttemptThatLosesAFreedRowToAnotherAcquirerDoesNotAnswerThatNoTimeRemains() throws Exception {
        String name = "lost-" + UUID.randomUUID();
        assertTrue(store.tryAcquire(name, "first", HOLDER, TTL).acquired());
        assertTrue(store.release(name, "first"));
        CompletableFuture<Acquisition> attempt;
        try (Connection other = TestDatabase.MARIADB.connect()) {
            other.setAutoCommit(false);
            try (Statement statement = other.createStatement()) {
                statement.executeUpdate("UPDATE " + TABLE + " SET owner = 'other', expires_at ="
                        + " DATE_ADD(UTC_TIMESTAMP(6), INTERVAL 60 SECOND) WHERE name = '" + name + "'");
            }
            attempt = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "waiter", HOLDER, TTL));
            // the upsert waits for the row lock of the other acquirer's uncommitted change
            awaitTrue(() -> waitingForARowLock() == 1, "the attempt waits for the other acquirer's row");
            other.commit();
        }
        Acquisition outcome = attempt.get(10, TimeUnit.SECONDS);
        assertFalse(outcome.acquired());
        Duration remaining = ((Acquisition.Busy) outcome).remaining();
        // 0 ms would have its waiter retry at once, again and again
        assertTrue(
                remaining == null || remaining.compareTo(Duration.ofSeconds(30)) > 0,
                "unknown, or the other acquirer's remaining time; got " + remaining);
    }

    @Test
    void aRetryByTheOwnerWhoseRowAnotherTransactionHoldsWaitsForItAndKeepsItsLease() throws Exception {
        String name = "retry-" + UUID.randomUUID();
        Acquisition.Acquired first =
                assertInstanceOf(Acquisition.Acquired.class, store.tryAcquire(name, "holder", HOLDER, TTL));
        CompletableFuture<Acquisition> retry;
        try (Connection blocking = TestDatabase.MARIADB.connect()) {
            blocking.setAutoCommit(false);
            try (Statement statement = blocking.createStatement()) {
                statement
                        .executeQuery("SELECT 1 FROM " + TABLE + " WHERE name = '" + name + "' FOR UPDATE")
                        .close();
            }
            retry = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "holder", HOLDER, TTL));
            // live, but the caller's own: not busy to it, so it waits and decides on the row as it is then
            awaitTrue(() -> waitingForARowLock() == 1, "the retry waits for the row");
            blocking.commit();
        }
        Acquisition.Acquired again = assertInstanceOf(Acquisition.Acquired.class, retry.get(10, TimeUnit.SECONDS));
        assertEquals(first.fence(), again.fence(), "the same hold, so the same fence");
        assertTrue(store.release(name, "holder"));
    }

    /**
     * @return how many upserts into {@link #TABLE} other sessions run now (read from the processlist, since InnoDB's
     *         list of transactions did not always show one waiting for a row lock)
     */
    private static int waitingForARowLock() {
        try (Connection connection = TestDatabase.MARIADB.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE COMMAND = 'Query' AND INFO LIKE '%INSERT INTO " + TABLE + " %'"
                        + " AND ID <> CONNECTION_ID()")) {
            rows.next();
            return rows.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static dev.exclusive.jpa.PostgresWaits.blocked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On PostgreSQL an attempt that skips a row another transaction holds must not do so when that transaction may be
 * the owner's own earlier attempt: one whose answer was lost (a network that fell silent, a timeout) and whose
 * statement may still commit on the server. Then the owner's next attempt waits for the row and renews the hold that
 * the lost attempt took, as the store contract asks ("never answered busy while the caller holds the lock"), for a
 * name's existing row as for its first one. The lost attempt's commit is played by a transaction of the test, after
 * a store attempt through a silenced proxy ended without an answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLostAnswerTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final String TABLE = "exclusive_lock_lost_answer";
    private static final TestDatabase DATABASE = TestDatabase.POSTGRES;

    @BeforeAll
    void freshTable() throws SQLException {
        DATABASE.assumeAvailable();
        DATABASE.dropTable(TABLE);
    }

    @Test
    void afterALostAnswerTheOwnersNextAttemptWaitsForItsRowAndRenewsTheHoldItTook() throws Exception {
        afterALostAnswer(true);
    }

    @Test
    void afterALostAnswerTheOwnersNextAttemptWaitsForTheFirstRowItInsertedAndRenewsIt() throws Exception {
        afterALostAnswer(false);
    }

    /**
     * @param rowExists whether the name has a free row already (the lost attempt took it over) or none (the lost
     *                  attempt inserted the first one)
     */
    private void afterALostAnswer(boolean rowExists) throws Exception {
        String name = (rowExists ? "taken-" : "first-") + UUID.randomUUID();
        String owner = "owner-" + UUID.randomUUID();
        try (SilencingProxy proxy = new SilencingProxy("127.0.0.1", 5432);
                EntityManagerFactory factory = TestDatabase.postgresThrough(proxy);
                JpaLockStore store = JpaLockStore.builder(factory)
                        .storeName("lost")
                        .table(TABLE)
                        .createTable(true)
                        .timeout(Duration.ofSeconds(2))
                        .build()) {
            try {
                if (rowExists) {
                    assertTrue(store.tryAcquire(name, "earlier", HOLDER, TTL).acquired());
                    assertTrue(store.release(name, "earlier"));
                } else {
                    store.ping(); // the table exists
                }
                proxy.silence();
                assertThrows(LockStoreUnavailableException.class, () -> store.tryAcquire(name, owner, HOLDER, TTL));
                proxy.heal();
                try (Connection lost = DATABASE.connect()) {
                    lost.setAutoCommit(false);
                    long fence = takeAsTheLostAttempt(lost, name, owner, rowExists);
                    CompletableFuture<Acquisition> next =
                            CompletableFuture.supplyAsync(() -> store.tryAcquire(name, owner, HOLDER, TTL));
                    awaitTrue(() -> blocked(TABLE) == 1, "the owner's next attempt waits for the row");
                    lost.commit();
                    Acquisition.Acquired renewed =
                            assertInstanceOf(Acquisition.Acquired.class, next.get(10, TimeUnit.SECONDS));
                    assertEquals(fence, renewed.fence(), "the hold the lost attempt took, renewed");
                }
                assertTrue(store.release(name, owner));
            } finally {
                proxy.close();
            }
        }
    }

    /** @return the fence of the hold that {@code lost}'s open transaction gives {@code owner}, as the store would */
    private static long takeAsTheLostAttempt(Connection lost, String name, String owner, boolean rowExists)
            throws SQLException {
        String lease = "'" + owner + "', 'test', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + INTERVAL '60 seconds'";
        String sql = rowExists
                ? "UPDATE " + TABLE + " SET (owner, holder, acquired_at, expires_at, fence) = (" + lease
                        + ", fence + 1) WHERE name = '" + name + "' RETURNING fence"
                : "INSERT INTO " + TABLE + " (owner, holder, acquired_at, expires_at, name, fence) VALUES (" + lease
                        + ", '" + name + "', 42) RETURNING fence";
        try (Statement statement = lost.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            assertTrue(row.next());
            return row.getLong(1);
        }
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.spi.Acquisition;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On MariaDB an attempt whose row another transaction holds waits for it and decides on the row as that transaction
 * left it: one that lost a freed row to another acquirer is told that acquirer's remaining time (not that no time
 * remains), and the owner's own retry keeps its hold and fence.
 *
 * <p>Unlike on PostgreSQL, an attempt on a lock live for another owner also waits for the row lock, since MariaDB's
 * upsert locks the row before it decides. A version that failed at once with a zero lock wait and then answered from
 * a plain read was tried and dropped: the MariaDB driver logs every such failure at WARN ("Lock wait timeout
 * exceeded"), 500 lines in one run of the store contract, and a one-statement alternative ({@code BEGIN NOT ATOMIC})
 * made an uncontended acquire+release 40-50 % slower.
 */
class MariaDbBusyAttemptTest extends AbstractBusyAttemptTest {

    private static final String TABLE = "exclusive_lock_mariadb_busy";

    MariaDbBusyAttemptTest() {
        super(TestDatabase.MARIADB, TABLE);
    }

    @Override
    String takeOverForAnother(String name) {
        return "UPDATE " + TABLE + " SET owner = 'other', expires_at = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL 60 SECOND)"
                + " WHERE name = '" + name + "'";
    }

    @Override
    boolean waitsForAnotherAcquirer() {
        return true;
    }

    /**
     * Upserts into {@link #TABLE} that other sessions run now, read from the processlist, since InnoDB's list of
     * transactions did not always show one waiting for a row lock.
     */
    @Override
    int waitingAttempts() {
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

    @Test
    void aRetryByTheOwnerWhoseRowAnotherTransactionHoldsWaitsForItAndKeepsItsLease() throws Exception {
        String name = "retry-" + UUID.randomUUID();
        Acquisition.Acquired first =
                assertInstanceOf(Acquisition.Acquired.class, store.tryAcquire(name, "holder", HOLDER, TTL));
        CompletableFuture<Acquisition> retry;
        try (Connection blocking = holdingTheRow(name)) {
            retry = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "holder", HOLDER, TTL));
            // live, but the caller's own: not busy to it, so it waits and decides on the row as it is then
            awaitTrue(() -> waitingAttempts() == 1, "the retry waits for the row");
            blocking.commit();
        }
        Acquisition.Acquired again = assertInstanceOf(Acquisition.Acquired.class, retry.get(10, TimeUnit.SECONDS));
        assertEquals(first.fence(), again.fence(), "the same hold, so the same fence");
        assertTrue(store.release(name, "holder"));
    }
}

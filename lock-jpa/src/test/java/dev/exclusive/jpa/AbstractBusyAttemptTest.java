package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What an attempt on a busy lock answers while a concurrent transaction, played by a connection of the test, holds
 * its row uncommitted: the same on every database whose store decides in one statement; each subclass adds what its
 * own statement does with the row lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractBusyAttemptTest {

    static final LockHolder HOLDER = new LockHolder("test", "main", "");
    static final Duration TTL = Duration.ofSeconds(60);

    final TestDatabase database;
    final String table;
    private EntityManagerFactory factory;
    JpaLockStore store;

    AbstractBusyAttemptTest(TestDatabase database, String table) {
        this.database = database;
        this.table = table;
    }

    /** @return an update that gives {@code name}'s row to owner {@code other} for 60 s from now */
    abstract String takeOverForAnother(String name);

    /**
     * @return whether an attempt on a free row that another transaction is taking over waits for that transaction
     *         (MariaDB, whose upsert locks the row before it decides), rather than answering at once (PostgreSQL)
     */
    abstract boolean waitsForAnotherAcquirer();

    /**
     * @return how many acquisition statements of other sessions wait for a row lock of {@link #table} now; asked
     *         only where {@link #waitsForAnotherAcquirer()}
     */
    int waitingAttempts() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + ": attempts do not wait here");
    }

    /** @return a connection whose open transaction holds {@code name}'s row lock; commit it to let go */
    Connection holdingTheRow(String name) throws SQLException {
        return database.holdingTheRow(table, name);
    }

    @BeforeAll
    void openStore() throws SQLException {
        database.assumeAvailable();
        database.dropTable(table);
        factory = database.open();
        store = JpaLockStore.builder(factory)
                .storeName("busy")
                .table(table)
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
        try (Connection other = database.connect()) {
            other.setAutoCommit(false);
            try (Statement statement = other.createStatement()) {
                statement.executeUpdate(takeOverForAnother(name));
            }
            attempt = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "waiter", HOLDER, TTL));
            if (waitsForAnotherAcquirer()) {
                awaitTrue(() -> waitingAttempts() == 1, "the attempt waits for the other acquirer's row");
            } else {
                // answered while the other acquirer's transaction is still open
                attempt.get(5, TimeUnit.SECONDS);
            }
            other.commit();
        }
        Acquisition outcome = attempt.get(10, TimeUnit.SECONDS);
        assertFalse(outcome.acquired());
        Duration remaining = ((Acquisition.Busy) outcome).remaining();
        // the row the attempt first saw was free: 0 ms would have its waiter retry at once, again and again
        assertTrue(
                remaining == null || remaining.compareTo(Duration.ofSeconds(30)) > 0,
                "unknown, or the other acquirer's remaining time; got " + remaining);
    }

    /**
     * The owner's own live row is waited for, never skipped: an owner asking again while another transaction (a
     * waiter's mark, an operator's force-release) holds the row hears, once it commits, that it still holds the
     * lock, renewed for the new ttl, with its fence and acquisition time kept; never busy about its own hold.
     */
    @Test
    void theOwnersAttemptOnItsOwnLiveRowWaitsForTheRowLockAndRenewsTheHold() throws Exception {
        String name = "own-" + UUID.randomUUID();
        Acquisition.Acquired first = assertInstanceOf(
                Acquisition.Acquired.class, store.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(30)));
        CompletableFuture<Acquisition> again;
        try (Connection blocking = holdingTheRow(name)) {
            again = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "holder", HOLDER, TTL));
            assertThrows(
                    TimeoutException.class,
                    () -> again.get(300, TimeUnit.MILLISECONDS),
                    "the attempt waits while the other transaction holds the row");
            blocking.commit();
        }
        Acquisition.Acquired renewed = assertInstanceOf(
                Acquisition.Acquired.class, again.get(10, TimeUnit.SECONDS), "the owner still holds its lock");
        assertEquals(first.fence(), renewed.fence(), "a renewal keeps the fence");
        assertEquals(first.acquiredAt(), renewed.acquiredAt(), "and the acquisition time");
        assertTrue(
                renewed.expiresAt().isAfter(first.expiresAt().plusSeconds(20)),
                "renewed for the new ttl: " + first.expiresAt() + " then " + renewed.expiresAt());
        assertTrue(store.release(name, "holder"));
    }
}

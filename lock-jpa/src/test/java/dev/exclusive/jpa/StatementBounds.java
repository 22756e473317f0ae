package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.function.Executable;

/**
 * How the tests of the store's statement bounds check them: a store named {@code db} with a 2 s timeout, whose
 * statements that get no answer must fail as {@link LockStoreUnavailableException} in less than 8 s (and are failed,
 * rather than left to hang the build, after 30 s), after which the next operation works.
 */
final class StatementBounds {

    static final LockHolder HOLDER = new LockHolder("test", "main", "");
    static final Duration TTL = Duration.ofSeconds(60);
    static final Duration TIMEOUT = Duration.ofSeconds(2);
    static final Duration BOUND = Duration.ofSeconds(8);
    private static final Duration HANG = Duration.ofSeconds(30);

    private StatementBounds() {}

    /** @return a store named {@code db} on {@code table}, created if missing, with the {@link #TIMEOUT} */
    static JpaLockStore store(EntityManagerFactory factory, String table) {
        return JpaLockStore.builder(factory)
                .storeName("db")
                .table(table)
                .createTable(true)
                .timeout(TIMEOUT)
                .build();
    }

    /** Asserts that {@code operation} fails as unavailable, naming the store, within {@link #BOUND}. */
    static void within(Executable operation) {
        long start = System.nanoTime();
        LockStoreUnavailableException e =
                assertTimeoutPreemptively(HANG, () -> assertThrows(LockStoreUnavailableException.class, operation));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(BOUND) < 0, "took " + took + ", more than " + BOUND);
        assertTrue(e.getMessage().contains("db") && e.getCause() != null, e.getMessage());
    }

    /**
     * A release of {@code store}'s lock whose row another transaction keeps locked is unavailable within the bound;
     * once that transaction ends, the lock is free (released by the late statement, or by a second release) and
     * another owner takes it.
     */
    static void releaseBehindALockedRow(TestDatabase database, JpaLockStore store, String table) throws Exception {
        assertTrue(store.tryAcquire("row", "a", HOLDER, TTL).acquired());
        try (Connection holding = database.holdingTheRow(table, "row")) {
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

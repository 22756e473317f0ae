package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static dev.exclusive.jpa.PostgresWaits.blocked;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On PostgreSQL what grants a lease waits for its commit to reach the disk, and what only frees or hints does not
 * (see {@link JpaLockStore}, "Durability"). The store's sessions delay every flush of the log by 100 ms
 * ({@code commit_delay}, set for these sessions only, with {@code commit_siblings} 0 so that it always applies): a
 * statement that waits for its flush takes at least that long, one that does not takes about a round trip. The
 * bound is loose on purpose: it tells the two mechanisms apart, it does not measure speed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFlushTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_flush";
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final long FLUSH_DELAY_MILLIS = 100;
    private static final String HERE = "jvmFlushHere-";
    private static final String ELSEWHERE = "jvmFlushElsewhere-";

    private EntityManagerFactory delayed;
    private JpaLockStore store;

    @BeforeAll
    void openStore() throws SQLException {
        TestDatabase.POSTGRES.assumeAvailable();
        assumeFlushesWait();
        TestDatabase.POSTGRES.dropTable(TABLE);
        delayed = TestDatabase.POSTGRES.open(Map.of(
                "jakarta.persistence.jdbc.url",
                TestDatabase.POSTGRES.url() + "&options=-c%20commit_delay=" + FLUSH_DELAY_MILLIS * 1000
                        + "%20-c%20commit_siblings=0"));
        store = JpaLockStore.builder(delayed)
                .storeName("flush")
                .table(TABLE)
                .createTable(true)
                .backoff(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .localOwners(HERE)
                .build();
    }

    /** A server with {@code fsync} off never flushes, so it never delays one either: nothing to tell apart. */
    private static void assumeFlushesWait() throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet fsync = statement.executeQuery("SHOW fsync")) {
            fsync.next();
            if (!"on".equals(fsync.getString(1))) {
                String message = "PostgreSQL runs with fsync " + fsync.getString(1) + ", so commits never wait for a"
                        + " flush; turn it on to run these tests";
                if ("true".equals(System.getenv("CI"))) {
                    fail(message + " — CI=true, so this fails the build");
                }
                Assumptions.abort(message + " (skipped because CI is not true)");
            }
        }
    }

    @AfterAll
    void closeStore() {
        if (store != null) {
            store.close();
        }
        if (delayed != null) {
            delayed.close();
        }
    }

    @Test
    void anAcquisitionAndAnExtensionWaitForTheirFlush() {
        long[] inserted = new long[5];
        long[] takenOver = new long[5];
        long[] extended = new long[5];
        for (int i = 0; i < inserted.length; i++) {
            String name = "grant-" + UUID.randomUUID();
            inserted[i] = millis(() ->
                    assertTrue(store.tryAcquire(name, HERE + "a", HOLDER, TTL).acquired()));
            assertTrue(store.release(name, HERE + "a"));
            takenOver[i] = millis(() ->
                    assertTrue(store.tryAcquire(name, HERE + "b", HOLDER, TTL).acquired()));
            extended[i] = millis(() -> assertTrue(store.extend(name, HERE + "b", TTL)));
        }
        assertAtLeastAFlush(inserted, "an acquisition of a name's first row");
        assertAtLeastAFlush(takenOver, "an acquisition of a free row");
        assertAtLeastAFlush(extended, "an extension");
    }

    @Test
    void aReleaseDoesNotWaitForItsFlush() {
        long[] took = new long[5];
        for (int i = 0; i < took.length; i++) {
            String name = "release-" + UUID.randomUUID();
            assertTrue(store.tryAcquire(name, HERE + "r", HOLDER, TTL).acquired());
            took[i] = millis(() -> assertTrue(store.release(name, HERE + "r")));
            assertFalse(store.inspect(name).isPresent(), "released");
        }
        assertShorterThanAFlush(took, "a release");
    }

    @Test
    void aReleaseWithAMinimumHoldDoesNotWaitForItsFlushWhetherItFreesOrKeeps() {
        long[] freed = new long[5];
        long[] kept = new long[5];
        for (int i = 0; i < freed.length; i++) {
            String name = "floor-" + UUID.randomUUID();
            assertTrue(store.tryAcquire(name, HERE + "f", HOLDER, TTL).acquired());
            freed[i] = millis(() -> assertTrue(store.release(name, HERE + "f", Duration.ZERO)));
            assertFalse(store.inspect(name).isPresent(), "past its floor: freed");
            assertTrue(store.tryAcquire(name, HERE + "f", HOLDER, TTL).acquired());
            kept[i] = millis(() -> assertTrue(store.release(name, HERE + "f", Duration.ofSeconds(30))));
            assertTrue(store.inspect(name).isPresent(), "before its floor: kept until then");
        }
        assertShorterThanAFlush(freed, "a release past its floor");
        assertShorterThanAFlush(kept, "a release before its floor");
    }

    @Test
    void anAttemptThatLockedTheRowAndTookNothingDoesNotWaitForItsFlush() throws Exception {
        long[] took = new long[3];
        for (int i = 0; i < took.length; i++) {
            String name = "lost-" + UUID.randomUUID();
            assertTrue(store.tryAcquire(name, HERE + "l", HOLDER, TTL).acquired());
            CompletableFuture<Acquisition> retry;
            long committedAt;
            try (Connection other = TestDatabase.POSTGRES.connect()) {
                other.setAutoCommit(false);
                try (Statement statement = other.createStatement()) {
                    statement.executeUpdate("UPDATE " + TABLE + " SET owner = 'other', expires_at ="
                            + " CURRENT_TIMESTAMP + INTERVAL '60 seconds' WHERE name = '" + name + "'");
                }
                // the owner's retry (as after a lost answer) waits for the row it holds in its snapshot, then locks
                // it to find it another's: a transaction that wrote a row lock to the log and nothing else
                retry = CompletableFuture.supplyAsync(() -> store.tryAcquire(name, HERE + "l", HOLDER, TTL));
                awaitTrue(() -> blocked(TABLE) == 1, "the retry waits for the other's row");
                other.commit();
                committedAt = System.nanoTime();
            }
            assertFalse(retry.get(10, TimeUnit.SECONDS).acquired());
            took[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committedAt);
        }
        assertShorterThanAFlush(took, "a retry that found its row taken, after the other transaction committed,");
    }

    @Test
    void aWaitersMarkDoesNotWaitForItsFlush() throws Exception {
        EntityManagerFactory plain = TestDatabase.POSTGRES.open(Map.of(
                "jakarta.persistence.jdbc.url", TestDatabase.POSTGRES.url() + "&ApplicationName=flush-elsewhere"));
        try (plain;
                JpaLockStore elsewhere = JpaLockStore.builder(plain)
                        .storeName("flush-elsewhere")
                        .table(TABLE)
                        .createTable(true)
                        .localOwners(ELSEWHERE)
                        .build()) {
            String name = "mark-" + UUID.randomUUID();
            assertTrue(elsewhere.tryAcquire(name, ELSEWHERE + "h", HOLDER, TTL).acquired());
            store.awaitRelease(name, Duration.ofMillis(1)); // starts the listener, without which nobody marks
            awaitTrue(() -> store.listener().listening(), "the waiting store listens");
            long[] took = new long[5];
            for (int i = 0; i < took.length; i++) {
                assertFalse(store.tryAcquire(name, HERE + "w", HOLDER, TTL).acquired());
                // each wait ends later than the last mark, so each marks the row again, then waits 1 ms
                took[i] = millis(() -> store.awaitRelease(name, Duration.ofMillis(1)));
            }
            assertTrue(marked(name), "the waiter marked the lock");
            assertShorterThanAFlush(took, "a waiter's mark and 1 ms wait");
            assertTrue(elsewhere.release(name, ELSEWHERE + "h"));
        }
    }

    /** @return whether a waiter has marked {@code name}'s row */
    private static boolean marked(String name) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT waited_until IS NOT NULL FROM " + TABLE + " WHERE name = '" + name + "'")) {
            return row.next() && row.getBoolean(1);
        }
    }

    private static void assertShorterThanAFlush(long[] took, String what) {
        long median = median(took);
        assertTrue(
                median < FLUSH_DELAY_MILLIS,
                what + " took " + Arrays.toString(took) + " ms: a median of " + median + " ms, not less than the "
                        + FLUSH_DELAY_MILLIS + " ms that each flush is delayed by");
    }

    /**
     * The median, since a statement's flush is sometimes done by another process first (the WAL writer, which
     * flushes the commits that did not wait), and then not delayed: it waits for that flush instead, which started
     * earlier.
     */
    private static void assertAtLeastAFlush(long[] took, String what) {
        long median = median(took);
        assertTrue(
                median >= FLUSH_DELAY_MILLIS * 9 / 10,
                what + " took " + Arrays.toString(took) + " ms: a median of " + median + " ms, less than the "
                        + FLUSH_DELAY_MILLIS + " ms that each flush is delayed by");
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** A step of a test that may throw. */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static long millis(Step step) {
        long start = System.nanoTime();
        try {
            step.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}

package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cleanup of rows past the retention runs when an acquisition finds its turn due, but not on that acquisition's
 * time: a cleanup of many rows took 7 s for 300,000 on MariaDB, while the caller, and the handle's renewal, waited
 * for tryAcquire, whose lease of 2 s had ended in the database before it answered "acquired".
 */
class CleanupOffTheAcquisitionTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "cleanup_aside_lock";

    /** A clock the test moves forward. */
    static final class MovableClock extends Clock {
        volatile Instant now = Instant.now();

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void anAcquisitionAnswersBeforeTheCleanupItStartedHasRun() throws Exception {
        TestDatabase db = TestDatabase.H2;
        MovableClock clock = new MovableClock();
        CountDownLatch cleanupMayRun = new CountDownLatch(1);
        List<Thread> started = new CopyOnWriteArrayList<>();
        ThreadFactory held = work -> { // the store's threads, as the container's factory would give them
            Thread thread = new Thread(() -> {
                try {
                    cleanupMayRun.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                work.run();
            });
            started.add(thread);
            return thread;
        };
        try (EntityManagerFactory factory = db.open();
                JpaLockStore store = JpaLockStore.builder(factory)
                        .table(TABLE)
                        .createTable(true)
                        .retention(Duration.ofMinutes(1))
                        .clock(clock)
                        .threadFactory(held)
                        .build()) {
            store.inspect("warm-up"); // creates the table
            AbstractJpaLockStoreTest.execute(
                    db,
                    "INSERT INTO " + TABLE + " (name, owner, holder, acquired_at, expires_at, fence) VALUES"
                            + " ('stale', NULL, NULL, CURRENT_TIMESTAMP - INTERVAL '2' DAY,"
                            + " CURRENT_TIMESTAMP - INTERVAL '1' DAY, 1)");
            clock.now = clock.now.plus(Duration.ofMinutes(2)); // the cleanup's turn has come

            assertTrue(store.tryAcquire("live", "owner-a", HOLDER, Duration.ofSeconds(2))
                    .acquired());

            assertEquals(1, started.size(), "the cleanup was handed to a thread of the store's factory");
            cleanupMayRun.countDown();
            started.get(0).join(10_000);
            assertEquals(
                    0L,
                    count(db, "SELECT COUNT(*) FROM " + TABLE + " WHERE name = 'stale'"),
                    "the row past the retention, deleted by the cleanup");
            assertTrue(store.inspect("live").isPresent());
        } finally {
            db.dropTable(TABLE);
        }
    }

    private static long count(TestDatabase db, String sql) throws Exception {
        try (var connection = db.connect();
                var statement = connection.createStatement();
                var rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static dev.exclusive.jpa.PostgresWaits.blocked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On PostgreSQL a release notifies only when a waiter of another JVM marked the lock, and a waiter whose mark races
 * the release is still woken at once. Two stores play two JVMs: their owners start with different prefixes, and
 * their factories' URLs differ, so that they share no local signals. Both poll only every 5 s and wait up to 20 s,
 * so a wake-up within 2 s comes from a notification or from the mark's answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresWaitMarkTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_mark";
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final String HERE = "jvmHere-";
    private static final String ELSEWHERE = "jvmElsewhere-";

    private EntityManagerFactory here;
    private EntityManagerFactory elsewhere;

    @BeforeAll
    void openFactories() throws SQLException {
        TestDatabase.POSTGRES.assumeAvailable();
        TestDatabase.POSTGRES.dropTable(TABLE);
        here = TestDatabase.POSTGRES.open();
        elsewhere = TestDatabase.POSTGRES.open(
                Map.of("jakarta.persistence.jdbc.url", TestDatabase.POSTGRES.url() + "&ApplicationName=elsewhere"));
    }

    @AfterAll
    void closeFactories() {
        if (here != null) {
            here.close();
        }
        if (elsewhere != null) {
            elsewhere.close();
        }
    }

    private static JpaLockStore store(EntityManagerFactory factory, String name, String owners) {
        return JpaLockStore.builder(factory)
                .storeName(name)
                .table(TABLE)
                .createTable(true)
                .backoff(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .localOwners(owners)
                .build();
    }

    @Test
    void aReleaseNotifiesOnlyWhileAWaiterOfAnotherJvmHasMarkedTheLock() throws Exception {
        try (JpaLockStore holder = store(here, "mark-holder", HERE);
                JpaLockStore waiter = store(elsewhere, "mark-waiter", ELSEWHERE);
                Connection listening = TestDatabase.POSTGRES.connect()) {
            listen(listening);
            String name = "mark-" + UUID.randomUUID();
            String owner = HERE + "1";
            assertTrue(holder.tryAcquire(name, owner, HOLDER, TTL).acquired());
            assertTrue(holder.release(name, owner));
            assertEquals(List.of(), notifiedBefore(listening, "sentinel-1"), "nobody waited: no notification");

            assertTrue(holder.tryAcquire(name, owner, HOLDER, TTL).acquired());
            Waiting waiting = new Waiting(waiter, name);
            waiting.attempted.await();
            waiting.proceed.countDown();
            awaitTrue(waiting::parked, "the waiter is parked");
            long releasedAt = System.nanoTime();
            assertTrue(holder.release(name, owner));
            assertWokenSoon(waiting, releasedAt);
            assertEquals(List.of(name), notifiedBefore(listening, "sentinel-2"), "the marked release notified");
            assertTrue(waiter.tryAcquire(name, ELSEWHERE + "1", HOLDER, TTL).acquired());
        }
    }

    @Test
    void aWaiterWhoseMarkQueuesBehindTheReleaseFindsTheLockFreeAtOnce() throws Exception {
        racingRelease(false);
    }

    @Test
    void aReleaseThatQueuesBehindTheMarkNotifiesTheWaiter() throws Exception {
        racingRelease(true);
    }

    /**
     * The holder's release and the waiter's mark both wait for one row lock that a third connection holds, in the
     * order asked; once it is given up, the waiter is woken within 2 s of its 20 s wait either way.
     */
    private void racingRelease(boolean markFirst) throws Exception {
        try (JpaLockStore holder = store(here, "race-holder", HERE);
                JpaLockStore waiter = store(elsewhere, "race-waiter", ELSEWHERE);
                Connection blocking = TestDatabase.POSTGRES.connect()) {
            String name = "race-" + UUID.randomUUID();
            String owner = HERE + "1";
            assertTrue(holder.tryAcquire(name, owner, HOLDER, TTL).acquired());
            Waiting waiting = new Waiting(waiter, name);
            waiting.attempted.await();

            blocking.setAutoCommit(false);
            try (Statement statement = blocking.createStatement()) {
                statement
                        .executeQuery("SELECT 1 FROM " + TABLE + " WHERE name = '" + name + "' FOR UPDATE")
                        .close();
            }
            CompletableFuture<Boolean> released;
            long releasedAt;
            if (markFirst) {
                waiting.proceed.countDown();
                awaitTrue(() -> blocked("waited_until = GREATEST") == 1, "the mark waits for the row");
                releasedAt = System.nanoTime();
                released = CompletableFuture.supplyAsync(() -> holder.release(name, owner));
                awaitTrue(() -> blocked("SET owner = NULL") == 1, "the release waits behind the mark");
            } else {
                releasedAt = System.nanoTime();
                released = CompletableFuture.supplyAsync(() -> holder.release(name, owner));
                awaitTrue(() -> blocked("SET owner = NULL") == 1, "the release waits for the row");
                waiting.proceed.countDown();
                awaitTrue(() -> blocked("waited_until = GREATEST") == 1, "the mark waits behind the release");
            }
            blocking.commit();
            assertTrue(released.get(20, TimeUnit.SECONDS));
            assertWokenSoon(waiting, releasedAt);
            assertTrue(waiter.tryAcquire(name, ELSEWHERE + "1", HOLDER, TTL).acquired());
        }
    }

    /** A waiter that tries once, and waits up to 20 s once told to, on one thread, as a blocking lock does. */
    private static final class Waiting {

        final CountDownLatch attempted = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        final CompletableFuture<Long> wokenAt;
        private volatile Thread thread;

        Waiting(JpaLockStore waiter, String name) {
            wokenAt = CompletableFuture.supplyAsync(() -> {
                thread = Thread.currentThread();
                try {
                    waiter.awaitRelease(name, Duration.ofMillis(1)); // starts the store's listener
                    // its start counts as a release seen, which would end the wait below at once
                    awaitTrue(() -> waiter.listener().listening(), "the waiter's store listens");
                    assertFalse(waiter.tryAcquire(name, ELSEWHERE + "1", HOLDER, TTL)
                            .acquired());
                    attempted.countDown();
                    proceed.await();
                    waiter.awaitRelease(name, Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return System.nanoTime();
            });
        }

        boolean parked() {
            Thread waiting = thread;
            return proceed.getCount() == 0 && waiting != null && waiting.getState() == Thread.State.TIMED_WAITING;
        }
    }

    private static void assertWokenSoon(Waiting waiting, long releasedAt) throws Exception {
        long took = waiting.wokenAt.get(20, TimeUnit.SECONDS) - releasedAt;
        assertTrue(took < TimeUnit.SECONDS.toNanos(2), "woken " + took / 1_000_000 + " ms after the release");
    }

    private static void listen(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN \"" + TABLE + "\"");
        }
    }

    /**
     * Sends {@code sentinel} on the channel from another connection and collects what {@code connection} was
     * notified of before it: notifications arrive in the order their transactions committed.
     */
    private static List<String> notifiedBefore(Connection connection, String sentinel) throws SQLException {
        AbstractJpaLockStoreTest.execute(TestDatabase.POSTGRES, "NOTIFY \"" + TABLE + "\", '" + sentinel + "'");
        List<String> names = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            PGNotification[] received = connection.unwrap(PGConnection.class).getNotifications(250);
            for (PGNotification notification : received == null ? new PGNotification[0] : received) {
                if (notification.getParameter().equals(sentinel)) {
                    return names;
                }
                names.add(notification.getParameter());
            }
        }
        throw new AssertionError("the sentinel notification did not arrive within 10 s");
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On PostgreSQL a release wakes waiters of another store (another factory, as in another JVM) through one listening
 * connection per store, which comes back after its connection is killed and is gone after close. Both stores poll
 * only every 5 s and wait up to 20 s, so a wake-up within 2 s can only come from the notification. The second
 * factory's URL differs, so that the two stores do not share this JVM's local signals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresReleaseNotificationTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_push";
    private static final Duration SLOW_POLLING = Duration.ofSeconds(5);

    private EntityManagerFactory here;
    private EntityManagerFactory elsewhere;

    @BeforeAll
    void openFactories() {
        TestDatabase.POSTGRES.assumeAvailable();
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

    private JpaLockStore store(EntityManagerFactory factory, String name) {
        return store(factory, name, Duration.ofSeconds(5));
    }

    /** @param timeout the store's timeout: the longest its statements, and its listener's ping, wait for an answer */
    private static JpaLockStore store(EntityManagerFactory factory, String name, Duration timeout) {
        return JpaLockStore.builder(factory)
                .storeName(name)
                .table(TABLE)
                .createTable(true)
                .backoff(SLOW_POLLING, SLOW_POLLING)
                .timeout(timeout)
                .build();
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherStoreLongBeforeItsBackoffAndAgainAfterTheListenerLostItsConnection()
            throws Exception {
        try (JpaLockStore holder = store(here, "push-holder");
                JpaLockStore waiter = store(elsewhere, "push-waiter")) {
            String name = "push-" + UUID.randomUUID();
            assertTrue(
                    holder.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            assertFalse(
                    waiter.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60)).acquired());
            waiter.awaitRelease(name, Duration.ofMillis(1)); // starts its listener
            awaitTrue(() -> listeners() == 1, "the waiter's store listens on one connection");

            assertWokenSoon(holder, waiter, name, "a");

            terminateListeners();
            awaitTrue(() -> listeners() == 1, "the listener listens again on a new connection");
            assertTrue(waiter.release(name, "b"));
            assertTrue(
                    holder.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            assertWokenSoon(holder, waiter, name, "a");
        }
        assertFalse(listenerThreadAlive("push-waiter"), "the listener thread ends with the store");
        awaitTrue(() -> listeners() == 0, "the listening connection stops listening with the store");
    }

    /**
     * A notification that reaches this store while its own release of the same name is under way is taken for that
     * release's own, and skipped, since that release woke a waiter here itself. When that release then frees nothing
     * (another JVM freed the lock first: the notification was that JVM's), nothing woke the waiter here, which slept
     * its whole wait. Here the other JVM's notification is sent while this store's release waits for the row, and
     * the row is then freed under that wait, as the other JVM's release would have.
     */
    @Test
    void anotherJvmsReleaseNotifiedWhileThisStoresOwnReleaseRunsStillWakesTheWaiterHere() throws Exception {
        try (JpaLockStore store = store(here, "swallowed")) {
            String name = "swallowed-" + UUID.randomUUID();
            assertTrue(
                    store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            store.awaitRelease(name, Duration.ofMillis(1)); // starts its listener
            awaitTrue(() -> store.listener().listening(), "the store listens");
            AtomicReference<Thread> waiting = new AtomicReference<>();
            CompletableFuture<Long> woken = CompletableFuture.supplyAsync(() -> {
                assertFalse(store.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60))
                        .acquired());
                waiting.set(Thread.currentThread());
                try {
                    store.awaitRelease(name, Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return System.nanoTime();
            });
            awaitTrue(
                    () -> waiting.get() != null && waiting.get().getState() == Thread.State.TIMED_WAITING,
                    "the waiter here parks");
            long freedAt;
            try (Connection elsewhere = TestDatabase.POSTGRES.holdingTheRow(TABLE, name)) {
                CompletableFuture<Boolean> release = CompletableFuture.supplyAsync(() -> store.release(name, "a"));
                awaitTrue(() -> PostgresWaits.blocked(TABLE) == 1, "this store's release waits for the row");
                try (Connection notifier = TestDatabase.POSTGRES.connect();
                        Statement statement = notifier.createStatement()) {
                    statement.execute("SELECT pg_notify('" + TABLE + "', '" + name + "')");
                }
                Thread.sleep(500); // the listener hears it within its poll; nothing tells the test when
                try (Statement statement = elsewhere.createStatement()) {
                    statement.execute("DELETE FROM " + TABLE + " WHERE name = '" + name + "'");
                }
                elsewhere.commit();
                freedAt = System.nanoTime();
                assertFalse(release.get(5, TimeUnit.SECONDS), "this store's release found the lock freed elsewhere");
            }
            long wokenAfter = TimeUnit.NANOSECONDS.toMillis(woken.get(15, TimeUnit.SECONDS) - freedAt);
            assertTrue(wokenAfter < 2_000, "the waiter here woke " + wokenAfter + " ms after the lock was freed");
        }
    }

    /**
     * A listening connection whose link falls silent without closing (half-open: nothing is carried any more, nothing
     * fails) hears no notification again. While a thread waits, the listener pings it after a second of silence; the
     * unanswered ping fails within the store's timeout (1 s here), and the listener listens on a new connection, from
     * which the next release reaches the waiter. The old listener waited for notifications on the dead link for ever,
     * and the waiter, parked for 20 s, missed the release.
     */
    @Test
    void aListenerWhoseLinkFellSilentPingsItAndListensOnANewConnection() throws Exception {
        try (SilencingProxy proxy = new SilencingProxy("127.0.0.1", 5432);
                EntityManagerFactory through = TestDatabase.postgresThrough(proxy);
                LoggedWarnings warnings = LoggedWarnings.record(ReleaseListener.class.getName());
                JpaLockStore holder = store(here, "silent-holder");
                JpaLockStore waiter = store(through, "silent-waiter", Duration.ofSeconds(1))) {
            String name = "silent-" + UUID.randomUUID();
            assertTrue(
                    holder.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            waiter.awaitRelease(name, Duration.ofMillis(1)); // starts its listener
            awaitTrue(() -> waiter.listener().listening(), "the waiter's store listens");
            List<Integer> before = listenerPids();

            proxy.silence();
            proxy.heal(); // the connections made so far stay silent; new ones are carried
            long[] acquiredAt = new long[1];
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
                while (System.nanoTime() < deadline) {
                    try {
                        // as a blocking lock does: an attempt, then the wait, on the same thread
                        if (waiter.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60))
                                .acquired()) {
                            acquiredAt[0] = System.nanoTime();
                            return;
                        }
                        waiter.awaitRelease(name, Duration.ofSeconds(20));
                    } catch (LockStoreUnavailableException e) {
                        // a pooled connection of before the silence: it fails within the timeout, and goes
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            awaitTrue(
                    () -> listenerPids().stream().anyMatch(pid -> !before.contains(pid)),
                    "the listener listens on a new connection");
            awaitTrue(() -> waiter.listener().listening(), "the listener listens again");
            Thread.sleep(300); // the waiter, woken by the new listener, tries and parks again
            long releasedAt = System.nanoTime();
            assertTrue(holder.release(name, "a"));
            waiting.get(30, TimeUnit.SECONDS);
            long took = acquiredAt[0] - releasedAt;
            assertTrue(
                    acquiredAt[0] != 0 && took < TimeUnit.SECONDS.toNanos(2),
                    "acquired " + took / 1_000_000 + " ms after the release");
            assertTrue(
                    warnings.messages().stream()
                            .anyMatch(message -> message.contains("silent-waiter")
                                    && message.contains("the release listener lost its connection")),
                    warnings.messages().toString());
        }
    }

    /**
     * A store closed while its listener's ping goes unanswered (the link fell silent) ends the listener's thread
     * within a second: it aborts the listening connection, so the thread does not wait out the store's timeout (10 s
     * here). The old close waited 2 s for the thread and returned with it still blocked on the ping: inside a server,
     * a thread of an undeployed application.
     */
    @Test
    void aStoreClosedWhileItsListenersPingGoesUnansweredLeavesNoThreadBehind() throws Exception {
        try (SilencingProxy proxy = new SilencingProxy("127.0.0.1", 5432);
                EntityManagerFactory through = TestDatabase.postgresThrough(proxy);
                JpaLockStore holder = store(here, "closing-holder");
                JpaLockStore waiter = store(through, "closing-silent", Duration.ofSeconds(10))) {
            String name = "closing-" + UUID.randomUUID();
            assertTrue(
                    holder.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            waiter.awaitRelease(name, Duration.ofMillis(1)); // starts its listener
            awaitTrue(() -> waiter.listener().listening(), "the waiter's store listens");
            Thread[] parked = new Thread[1];
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                // as a blocking lock does: an attempt, then the wait, which makes the listener ping after 1 s
                assertFalse(waiter.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60))
                        .acquired());
                parked[0] = Thread.currentThread();
                try {
                    waiter.awaitRelease(name, Duration.ofSeconds(4));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            awaitTrue(
                    () -> parked[0] != null && parked[0].getState() == Thread.State.TIMED_WAITING,
                    "the waiter is parked");

            proxy.silence(); // before the waiter's ping, which comes after a second of silence
            awaitTrue(() -> listenerPinging("closing-silent"), "the listener pings the silent link");
            long closing = System.nanoTime();
            waiter.close(); // the one measured; the resource's close after it does nothing
            long took = System.nanoTime() - closing;
            assertFalse(listenerThreadAlive("closing-silent"), "the listener thread ends with the store");
            assertTrue(took < TimeUnit.SECONDS.toNanos(1), "closed in " + took / 1_000_000 + " ms");
            waiting.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code waiter} tries once and then waits up to 20 s; {@code holder} releases once it is parked; the wake-up
     * comes within 2 s.
     */
    private static void assertWokenSoon(JpaLockStore holder, JpaLockStore waiter, String name, String owner)
            throws Exception {
        Thread[] waiting = new Thread[1];
        CompletableFuture<Long> wokenAt = CompletableFuture.supplyAsync(() -> {
            // as a blocking lock does: one attempt, then the wait, on the same thread
            assertFalse(
                    waiter.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60)).acquired());
            waiting[0] = Thread.currentThread();
            try {
                waiter.awaitRelease(name, Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return System.nanoTime();
        });
        awaitTrue(
                () -> waiting[0] != null && waiting[0].getState() == Thread.State.TIMED_WAITING,
                "the waiter is parked");
        long releasedAt = System.nanoTime();
        assertTrue(holder.release(name, owner));
        long took = wokenAt.get(20, TimeUnit.SECONDS) - releasedAt;
        assertTrue(took < TimeUnit.SECONDS.toNanos(2), "woken " + took / 1_000_000 + " ms after the release");
        assertTrue(waiter.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60)).acquired());
    }

    private static int listeners() {
        return listenerPids().size();
    }

    /** @return the server process ids of the sessions that listen on the table's channel */
    private static List<Integer> listenerPids() {
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN \""
                        + TABLE + "\"' AND pid <> pg_backend_pid()")) {
            List<Integer> pids = new ArrayList<>();
            while (rows.next()) {
                pids.add(rows.getInt(1));
            }
            return pids;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void terminateListeners() throws SQLException {
        AbstractJpaLockStoreTest.execute(
                TestDatabase.POSTGRES,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN \"" + TABLE + "\"'");
    }

    /** @return whether the store's listener thread waits for the answer to its ping (its {@code LISTEN} again) */
    private static boolean listenerPinging(String storeName) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> isListener(entry.getKey(), storeName))
                .flatMap(entry -> Arrays.stream(entry.getValue()))
                .anyMatch(frame -> frame.getClassName().equals(ReleaseListener.class.getName())
                        && frame.getMethodName().equals("listen"));
    }

    private static boolean listenerThreadAlive(String storeName) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> isListener(thread, storeName) && thread.isAlive());
    }

    /** @return whether {@code thread} is the release listener of the store named {@code storeName} */
    private static boolean isListener(Thread thread, String storeName) {
        return thread.getName().equals("exclusive-jpa-listener-" + storeName);
    }
}

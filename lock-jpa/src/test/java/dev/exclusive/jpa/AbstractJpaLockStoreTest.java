package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.hibernate.cfg.AvailableSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract on one database, plus what only a database store must show: the database clock decides,
 * the store's transactions are its own, fences survive release and cleanup, and heavy contention leaks nothing.
 * Each subclass names its database; one factory serves every store of the class (stores over it are "servers").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJpaLockStoreTest extends LockStoreContract {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");

    private EntityManagerFactory factory;
    private final List<LockStore> extraStores = new ArrayList<>();

    /** @return the database this class runs on */
    abstract TestDatabase database();

    @BeforeAll
    void openFactory() {
        database().assumeAvailable();
        factory = database().open();
    }

    @AfterAll
    void closeFactory() {
        extraStores.forEach(LockStore::close);
        if (factory != null) {
            factory.close();
        }
    }

    @Override
    protected LockStore createStore() {
        return JpaLockStore.builder(factory).storeName(STORE).createTable(true).build();
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(JpaLockStore.builder(factory)
                .storeName(STORE)
                .createTable(true)
                .auditLimits(limits)
                .build());
    }

    /** Every acquisition is a few database round trips: 16 threads x 100 rounds still prove mutual exclusion. */
    @Override
    protected int contentionRounds() {
        return 100;
    }

    private JpaLockStore store(JpaLockStore.Builder builder) {
        JpaLockStore store = builder.build();
        extraStores.add(store);
        return store;
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID();
    }

    // ---------------------------------------------------------------- clock

    /**
     * A release in this JVM between a waiter's busy attempt and its wait: the waiter returns at once to try again,
     * instead of sleeping its whole pause (3 s here) beside a free lock. On PostgreSQL this is the first wait, before
     * the store's listener listens.
     */
    @Test
    void aReleaseHereBetweenAnAttemptAndItsWaitEndsTheWaitAtOnce() throws InterruptedException {
        try (JpaLockStore store = JpaLockStore.builder(factory)
                .storeName("between")
                .createTable(true)
                .backoff(Duration.ofSeconds(3), Duration.ofSeconds(3))
                .build()) {
            String name = "between-" + UUID.randomUUID();
            assertTrue(
                    store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60)).acquired());
            assertFalse(
                    store.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(60)).acquired(), "the attempt");
            assertTrue(store.release(name, "a"), "freed before the waiter registers");

            long started = System.nanoTime();
            store.awaitRelease(name, Duration.ofSeconds(3));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            assertTrue(waitedMillis < 1_000, "waited " + waitedMillis + " ms beside a lock freed after the attempt");
        }
    }

    @Test
    void skewedApplicationClockNeitherStealsALiveLockNorKeepsADeadOne() {
        Clock fast = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
        Clock slow = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10));
        JpaLockStore right = store(JpaLockStore.builder(factory).createTable(true));
        JpaLockStore ahead =
                store(JpaLockStore.builder(factory).createTable(true).clock(fast));
        JpaLockStore behind =
                store(JpaLockStore.builder(factory).createTable(true).clock(slow));

        String live = unique("skew-live");
        assertTrue(right.tryAcquire(live, "a", HOLDER, Duration.ofSeconds(30)).acquired());
        Acquisition busy = ahead.tryAcquire(live, "b", HOLDER, Duration.ofSeconds(30));
        assertInstanceOf(Acquisition.Busy.class, busy, "a clock 10 minutes ahead must not steal a live lock");
        Duration remaining = ((Acquisition.Busy) busy).remaining();
        assertTrue(
                remaining.compareTo(Duration.ofSeconds(20)) > 0 && remaining.compareTo(Duration.ofSeconds(30)) <= 0,
                "the database computes the remaining time, got " + remaining);

        String dead = unique("skew-dead");
        Acquisition first = behind.tryAcquire(dead, "a", HOLDER, Duration.ofMillis(300));
        assertTrue(first.acquired());
        Instant acquiredAt = ((Acquisition.Acquired) first).acquiredAt();
        assertTrue(
                Duration.between(acquiredAt, Instant.now()).abs().compareTo(Duration.ofMinutes(1)) < 0,
                "times come from the database, not the skewed clock: " + acquiredAt);
        awaitTrue(() -> ahead.inspect(dead).isEmpty(), Duration.ofSeconds(5));
        assertTrue(behind.inspect(dead).isEmpty(), "a clock 10 minutes behind must not keep a dead lock");
        assertFalse(behind.extend(dead, "a", Duration.ofSeconds(30)), "an expired lease cannot be extended");
        assertTrue(ahead.tryAcquire(dead, "b", HOLDER, Duration.ofSeconds(30)).acquired());
    }

    @Test
    void sessionsInAnotherTimeZoneAgreeOnEveryExpiry() {
        try (EntityManagerFactory skewedFactory = database().openSkewedSession()) {
            JpaLockStore utc = store(JpaLockStore.builder(factory).createTable(true));
            JpaLockStore farEast = store(JpaLockStore.builder(skewedFactory).createTable(true));

            String live = unique("tz-live");
            assertTrue(utc.tryAcquire(live, "a", HOLDER, Duration.ofSeconds(30)).acquired());
            Acquisition busy = farEast.tryAcquire(live, "b", HOLDER, Duration.ofSeconds(30));
            assertFalse(busy.acquired(), "a session 13 or 14 hours ahead must not steal a live lock");
            Duration remaining = ((Acquisition.Busy) busy).remaining();
            assertTrue(
                    remaining.compareTo(Duration.ofSeconds(20)) > 0 && remaining.compareTo(Duration.ofSeconds(30)) <= 0,
                    "got " + remaining);
            LockEntry seen = farEast.inspect(live).orElseThrow();
            assertEquals(utc.inspect(live).orElseThrow().expiresAt(), seen.expiresAt());

            String dead = unique("tz-dead");
            assertTrue(farEast.tryAcquire(dead, "a", HOLDER, Duration.ofMillis(300))
                    .acquired());
            awaitTrue(
                    () -> utc.tryAcquire(dead, "b", HOLDER, Duration.ofSeconds(30))
                            .acquired(),
                    Duration.ofSeconds(5));
            assertFalse(farEast.release(dead, "a"));
        }
    }

    @Test
    void anAcquireAndAReleaseAreOneStatementEachWithoutATransaction() {
        // Each BEGIN/COMMIT or read-back is a round trip more: the floor of a lock on a table is two statements.
        SlowStatements counted = new SlowStatements();
        try (EntityManagerFactory countedFactory =
                        database().open(Map.of(AvailableSettings.CONNECTION_PROVIDER, counted));
                JpaLockStore store =
                        JpaLockStore.builder(countedFactory).createTable(true).build()) {
            String name = unique("one-statement");
            store.inspect(name); // sets the store up
            int prepared = counted.prepared();
            int committed = counted.committed();
            for (int i = 0; i < 3; i++) {
                assertTrue(store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release(name, "a"));
            }
            assertEquals(6, counted.prepared() - prepared, "statements for 3 acquire+release");
            assertEquals(0, counted.committed() - committed, "explicit commits for 3 acquire+release");
        }
    }

    @Test
    void aReleaseBeforeTheFloorEndsTheLeaseAtTheFloorInOneStatementHoweverSlowTheConnection() {
        // 150 ms before every statement: a floor read by one statement and applied by another (an inspect, then
        // an extend, each on its own reading of the database clock) would end the lease at least that much after
        // acquisition + minimum hold.
        SlowStatements slow = new SlowStatements();
        try (EntityManagerFactory slowFactory = database().open(Map.of(AvailableSettings.CONNECTION_PROVIDER, slow));
                JpaLockStore slowStore =
                        JpaLockStore.builder(slowFactory).createTable(true).build()) {
            JpaLockStore store = store(JpaLockStore.builder(factory).createTable(true));
            String name = unique("floored");
            Acquisition.Acquired acquired =
                    (Acquisition.Acquired) slowStore.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(60));
            slow.delay(Duration.ofMillis(150));
            assertTrue(slowStore.release(name, "a", Duration.ofSeconds(30)));
            assertTrue(slow.delayed() > 0, "the statements were slow");
            LockEntry kept = store.inspect(name).orElseThrow();
            assertEquals(acquired.acquiredAt().plusSeconds(30), kept.expiresAt(), "the lease ends at the floor");
            assertEquals("a", kept.owner());
            assertEquals(acquired.fence(), kept.fence());
            assertFalse(
                    store.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(1)).acquired());
        }
    }

    // ---------------------------------------------------------------- transactions and fences

    @Test
    void theStoreCommitsOnItsOwnWhateverTheCallersTransactionDoes() {
        JpaLockStore store = store(JpaLockStore.builder(factory).createTable(true));
        JpaLockStore otherServer = store(JpaLockStore.builder(factory).createTable(true));
        String name = unique("own-transaction");
        EntityManager callers = factory.createEntityManager();
        try {
            callers.getTransaction().begin();
            assertTrue(
                    store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)).acquired());
            assertTrue(otherServer.inspect(name).isPresent(), "visible to other servers before the caller commits");
            callers.getTransaction().rollback();
            assertFalse(
                    otherServer
                            .tryAcquire(name, "b", HOLDER, Duration.ofSeconds(30))
                            .acquired(),
                    "the caller's rollback does not undo the acquisition");
        } finally {
            callers.close();
        }
    }

    @Test
    void aRetriedAcquireKeepsTheHoldsFenceAndAcquisitionTimeAndRenewsItsLease() {
        // The contract checks the fence; the rest of the SPI's promise is a CASE per column in the take-over.
        JpaLockStore store = store(JpaLockStore.builder(factory).createTable(true));
        String name = unique("retried");
        Acquisition.Acquired first = (Acquisition.Acquired) store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(2));
        Acquisition retried = store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30));
        Acquisition.Acquired again = assertInstanceOf(Acquisition.Acquired.class, retried);
        assertEquals(first.fence(), again.fence());
        assertEquals(first.acquiredAt(), again.acquiredAt());
        assertTrue(again.expiresAt().isAfter(first.expiresAt().plusSeconds(20)), first + " then " + again);
        LockEntry seen = store.inspect(name).orElseThrow();
        assertEquals(again.expiresAt(), seen.expiresAt(), "the renewed lease is the one in the table");
        assertEquals(first.acquiredAt(), seen.acquiredAt());
        Acquisition other = store.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(1));
        Duration remaining = assertInstanceOf(Acquisition.Busy.class, other).remaining();
        assertTrue(remaining.compareTo(Duration.ofSeconds(20)) > 0, "renewed to 30 s, got " + remaining);
    }

    @Test
    void fenceKeepsGrowingAfterReleaseExpiryAndRestart() {
        String name = unique("fence");
        long previous = 0;
        for (int i = 0; i < 3; i++) {
            JpaLockStore store = JpaLockStore.builder(factory).createTable(true).build();
            try (store) {
                Acquisition.Acquired acquired =
                        (Acquisition.Acquired) store.tryAcquire(name, "o" + i, HOLDER, Duration.ofSeconds(30));
                assertTrue(acquired.fence() > previous, acquired + " after " + previous);
                previous = acquired.fence();
                assertTrue(store.release(name, "o" + i));
            }
        }
        assertTrue(factory.isOpen(), "a store never closes a factory the application owns");
    }

    @Test
    void cleanUpDeletesOnlyRowsUnusedLongerThanTheRetention() throws SQLException {
        String table = "exclusive_lock_cleanup";
        database().dropTable(table);
        JpaLockStore store = store(
                JpaLockStore.builder(factory).table(table).createTable(true).retention(Duration.ofMillis(500)));
        String old = unique("old");
        String held = unique("held");
        assertTrue(store.tryAcquire(old, "a", HOLDER, Duration.ofSeconds(30)).acquired());
        assertTrue(store.release(old, "a"));
        assertTrue(store.tryAcquire(held, "a", HOLDER, Duration.ofMillis(600)).acquired());
        awaitTrue(() -> store.inspect(held).isEmpty(), Duration.ofSeconds(5));
        assertTrue(store.tryAcquire(held, "b", HOLDER, Duration.ofSeconds(30)).acquired());
        awaitTrue(() -> store.cleanUp() >= 0 && rows(table, old) == 0, Duration.ofSeconds(10));
        assertEquals(1, rows(table, held), "a live row is never deleted");
        assertFalse(store.tryAcquire(held, "c", HOLDER, Duration.ofSeconds(1)).acquired());

        String recent = unique("recent");
        JpaLockStore keeping = store(JpaLockStore.builder(factory).table(table).retention(Duration.ofHours(1)));
        Acquisition.Acquired kept =
                (Acquisition.Acquired) keeping.tryAcquire(recent, "a", HOLDER, Duration.ofMillis(1));
        awaitTrue(() -> keeping.inspect(recent).isEmpty(), Duration.ofSeconds(5));
        assertEquals(0, keeping.cleanUp(), "an expired row within the retention is kept, and with it its fence");
        assertEquals(1, rows(table, recent));
        assertTrue(((Acquisition.Acquired) keeping.tryAcquire(recent, "b", HOLDER, Duration.ofSeconds(1))).fence()
                > kept.fence());
    }

    @Test
    void fenceKeepsGrowingAfterTheCleanupDeletedTheRow() {
        String table = "exclusive_lock_reborn";
        JpaLockStore store = store(
                JpaLockStore.builder(factory).table(table).createTable(true).retention(Duration.ofMillis(1)));
        String name = unique("reborn");
        Acquisition.Acquired first = (Acquisition.Acquired) store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30));
        assertTrue(store.release(name, "a"));
        awaitTrue(() -> store.cleanUp() >= 0 && rows(table, name) == 0, Duration.ofSeconds(10));
        Acquisition.Acquired reborn =
                (Acquisition.Acquired) store.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(30));
        assertTrue(reborn.fence() > first.fence(), "a fence never goes back: " + first + " then " + reborn);
    }

    private long rows(String table, String name) {
        EntityManager em = factory.createEntityManager();
        try {
            return ((Number) em.createNativeQuery("SELECT COUNT(*) FROM " + table + " WHERE name = ?1")
                            .setParameter(1, name)
                            .getSingleResult())
                    .longValue();
        } finally {
            em.close();
        }
    }

    @Test
    void aMissingTableIsReportedWithTheFix() {
        JpaLockStore store = store(JpaLockStore.builder(factory).storeName("db").table("exclusive_lock_missing"));
        dev.exclusive.LockStoreUnavailableException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.exclusive.LockStoreUnavailableException.class,
                () -> store.tryAcquire("x", "a", HOLDER, Duration.ofSeconds(1)));
        assertTrue(
                e.getMessage().contains("exclusive_lock_missing")
                        && e.getMessage().contains("create-table"),
                e.getMessage());
    }

    @Test
    void aMissingAuditTableFailsOnlyTheAuditWithTheFix() {
        String table = "exclusive_lock_unaudited";
        JpaLockStore creator =
                store(JpaLockStore.builder(factory).storeName("db").table(table).createTable(true));
        assertTrue(creator.tryAcquire(unique("created"), "a", HOLDER, Duration.ofSeconds(1))
                .acquired());
        JpaLockStore store = store(JpaLockStore.builder(factory).storeName("db").table(table));

        dev.exclusive.LockStoreUnavailableException e = assertThrows(
                dev.exclusive.LockStoreUnavailableException.class,
                () -> store.audit(new dev.exclusive.AuditRecord(
                        Instant.now(),
                        dev.exclusive.AuditRecord.Kind.LEASE_LOST,
                        "x",
                        "a",
                        1,
                        HOLDER,
                        "node",
                        "lost")));
        assertTrue(
                e.getMessage().contains(table + "_audit")
                        && e.getMessage().contains("DDL.md")
                        && e.getMessage().contains("create-table"),
                e.getMessage());
        assertTrue(store.tryAcquire(unique("locks-still-work"), "a", HOLDER, Duration.ofSeconds(1))
                .acquired());
    }

    @Test
    void aNameColumnThatFoldsCaseIsRefusedWithTheFix() throws SQLException {
        // Under it 'a' and 'A' (or 'a' and 'a ', or an emoji and U+FFFD) would be one lock.
        String table = "exclusive_lock_folding";
        database().createCaseInsensitiveTable(table);
        JpaLockStore store = store(JpaLockStore.builder(factory).storeName("db").table(table));
        LockConfigurationException e = assertThrows(
                LockConfigurationException.class, () -> store.tryAcquire("a", "a", HOLDER, Duration.ofSeconds(1)));
        assertTrue(
                e.getMessage().contains("db")
                        && e.getMessage().contains(table)
                        && e.getMessage().contains("ALTER TABLE"),
                e.getMessage());
        assertEquals("table", e.key().orElseThrow());
    }

    @Test
    void namesOfTheLongestFullLengthFit() {
        JpaLockStore store = store(JpaLockStore.builder(factory).createTable(true));
        String name = UUID.randomUUID() + "é".repeat(dev.exclusive.LockNames.MAX_FULL_LENGTH - 36);
        assertEquals(dev.exclusive.LockNames.MAX_FULL_LENGTH, name.length());
        assertTrue(store.tryAcquire(
                        name,
                        "a",
                        new LockHolder("i".repeat(200), "t".repeat(200), "p".repeat(200)),
                        Duration.ofSeconds(30))
                .acquired());
        assertEquals(name, store.inspect(name).orElseThrow().name());
        assertEquals("p".repeat(200), store.inspect(name).orElseThrow().holder().purpose());
    }

    // ---------------------------------------------------------------- contention

    @Test
    void thirtyTwoThreadsOnOneNameNeverOverlapAndLeakNoException() throws Exception {
        int threads = 32;
        int rounds = 15;
        LockRegistry first = newRegistry(createStore());
        LockRegistry second = newRegistry(createStore());
        String name = unique("one-name");
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        runThreads(
                threads,
                t -> {
                    LockRegistry mine = t % 2 == 0 ? first : second;
                    for (int i = 0; i < rounds; i++) {
                        boolean ran = mine.lock(name, Duration.ofSeconds(30)).block(Duration.ofSeconds(60), () -> {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            counter[0]++;
                            inside.decrementAndGet();
                        });
                        assertTrue(ran, "a waiter gave up after 60 s");
                    }
                },
                failures);
        assertTrue(failures.isEmpty(), "leaked: " + failures);
        assertEquals(0, overlaps.get());
        assertEquals(threads * rounds, counter[0]);
    }

    @Test
    void thirtyTwoThreadsOnAThousandNamesNeverOverlapAndLeakNoException() throws Exception {
        int threads = 32;
        int names = 1_000;
        String prefix = unique("many") + ":";
        LockRegistry first = newRegistry(createStore());
        LockRegistry second = newRegistry(createStore());
        AtomicIntegerArray inside = new AtomicIntegerArray(names);
        AtomicIntegerArray acquired = new AtomicIntegerArray(names);
        AtomicInteger overlaps = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        runThreads(
                threads,
                t -> {
                    LockRegistry mine = t % 2 == 0 ? first : second;
                    List<Integer> order = new ArrayList<>();
                    for (int n = t % 4; n < names; n += 4) { // eight threads race for each name's first insert
                        order.add(n);
                    }
                    for (int i = 0; i < 40; i++) {
                        order.add(ThreadLocalRandom.current().nextInt(names));
                    }
                    Collections.shuffle(order);
                    for (int n : order) {
                        Lock lock = mine.lock(prefix + n, Duration.ofSeconds(30));
                        if (lock.get()) {
                            if (inside.incrementAndGet(n) != 1) {
                                overlaps.incrementAndGet();
                            }
                            acquired.incrementAndGet(n);
                            inside.decrementAndGet(n);
                            assertTrue(lock.release());
                        }
                    }
                },
                failures);
        assertTrue(failures.isEmpty(), "leaked: " + failures);
        assertEquals(0, overlaps.get());
        for (int n = 0; n < names; n++) {
            assertTrue(acquired.get(n) > 0, "name " + n + " was never acquired");
        }
    }

    /** What one contention thread does, given its index. */
    interface ThreadBody {
        void run(int thread) throws Exception;
    }

    private static void runThreads(int threads, ThreadBody body, ConcurrentLinkedQueue<Throwable> failures)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                futures.add(pool.submit(() -> {
                    try {
                        start.await();
                        body.run(index);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** For subclasses that need to look at the table with plain JDBC. */
    static void execute(TestDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}

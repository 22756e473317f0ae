package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockLostException;
import dev.exclusive.LockRegistry;
import dev.exclusive.Locks;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.RollbackException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link Fences} on one database: a holder whose lease ended is refused at the database once a newer holder of the
 * lock has claimed the resource, and the rest of its transaction rolls back with it; the same hold may claim as often
 * as it likes. The fences come from the jpa store on the same database, as an application's would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFencesTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    /** Another table the holders write in the same transactions as their claims: the "data" the fence guards. */
    private static final String NOTES = "fences_test_note";

    private EntityManagerFactory factory;
    private JpaLockStore store;
    private LockRegistry locks;
    private Fences fences;
    private final ExecutorService otherServer = Executors.newCachedThreadPool();

    /** @return the database this class runs on */
    abstract TestDatabase database();

    @BeforeAll
    void open() throws SQLException {
        database().assumeAvailable();
        factory = database().open();
        store = JpaLockStore.builder(factory).createTable(true).build();
        locks = LockRegistry.builder().store("db", store).build();
        fences = Fences.builder(factory).createTable(true).build();
        AbstractJpaLockStoreTest.execute(
                database(),
                "CREATE TABLE IF NOT EXISTS " + NOTES + " (id VARCHAR(100) NOT NULL PRIMARY KEY, resource"
                        + " VARCHAR(255) NOT NULL)");
    }

    @AfterAll
    void close() {
        otherServer.shutdownNow();
        if (locks != null) {
            locks.close();
        }
        if (store != null) {
            store.close();
        }
        if (factory != null) {
            factory.close();
        }
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID();
    }

    // ---------------------------------------------------------------- the guarantee

    @Test
    void aStaleHolderIsRefusedAtTheDatabaseAndItsOtherWritesRollBack() throws Exception {
        String name = unique("fenced");
        String resource = "resource:" + name;
        String staleNote = unique("stale");
        String newerNote = unique("newer");
        long[] fenceOf = new long[2]; // the stale hold's, the newer hold's

        boolean ran = locks.lock(name, TTL)
                .get(() -> {
                    Lock stale = Locks.assertHeld();
                    fenceOf[0] = stale.fence().getAsLong();
                    EntityManager em = factory.createEntityManager();
                    try {
                        em.getTransaction().begin();
                        insertNote(em, staleNote, resource);

                        // The lease ends (an operator, a pause past the ttl) and a newer holder claims and writes.
                        assertTrue(locks.forceRelease(name));
                        fenceOf[1] = otherServer
                                .submit(() -> locks.lock(name, TTL)
                                        .get(() -> inTransaction(em2 -> {
                                            long claimed = fences.claim(em2, resource);
                                            insertNote(em2, newerNote, resource);
                                            return claimed;
                                        }))
                                        .value())
                                .get(30, TimeUnit.SECONDS);

                        StaleFenceException refused =
                                assertThrows(StaleFenceException.class, () -> fences.claim(em, resource));
                        assertInstanceOf(LockLostException.class, refused);
                        assertEquals(resource, refused.resource());
                        assertEquals(fenceOf[0], refused.fence());
                        assertEquals(fenceOf[1], refused.currentFence());
                        assertEquals(stale.name(), refused.lockName().orElseThrow());
                        assertEquals("db", refused.storeName().orElseThrow());
                        assertTrue(em.getTransaction().getRollbackOnly(), "the claimer's transaction is rollback-only");
                        commitAnyway(em); // a caller that catches the exception still commits nothing (checked below)
                    } finally {
                        em.close();
                    }
                    return null;
                })
                .acquired();

        assertTrue(ran);
        assertTrue(fenceOf[1] > fenceOf[0], "the newer hold has the greater fence");
        assertFalse(noteExists(staleNote), "the stale holder's other write rolled back");
        assertTrue(noteExists(newerNote), "the newer holder's write stands");
        assertEquals(fenceOf[1], fenceInTable(resource));
    }

    @Test
    void theSameHoldMayClaimAResourceTwiceInOneTransactionAndInTwo() {
        String name = unique("twice");
        String resource = "resource:" + name;
        long fence = locks.lock(name, TTL)
                .get(() -> {
                    long first = inTransaction(em -> {
                        long claimed = fences.claim(em, resource);
                        assertEquals(claimed, fences.claim(em, resource), "twice in one transaction");
                        return claimed;
                    });
                    long second = inTransaction(em -> fences.claim(em, resource));
                    assertEquals(first, second, "again in a second transaction");
                    return first;
                })
                .value();
        assertEquals(fence, fenceInTable(resource));
    }

    @Test
    void aClaimTakesTheCurrentHoldsFenceAndEachNewerHoldClaimsOverTheLast() {
        String name = unique("holds");
        String resource = "resource:" + name;
        long previous = 0;
        for (int i = 0; i < 3; i++) {
            long[] held = new long[1];
            long claimed = locks.lock(name, TTL)
                    .get(() -> {
                        held[0] = Locks.assertHeld().fence().getAsLong();
                        return inTransaction(em -> fences.claim(em, resource));
                    })
                    .value();
            assertEquals(held[0], claimed);
            assertTrue(claimed > previous);
            assertEquals(claimed, fenceInTable(resource));
            previous = claimed;
        }
    }

    @Test
    void aRolledBackClaimLeavesTheFenceWhereItWas() {
        String resource = unique("resource:rolled-back");
        inTransaction(em -> fences.claim(em, resource, 10));
        EntityManager em = factory.createEntityManager();
        try {
            em.getTransaction().begin();
            fences.claim(em, resource, 20);
            em.getTransaction().rollback();
        } finally {
            em.close();
        }
        assertEquals(10, fenceInTable(resource));
        assertEquals(15, (long) inTransaction(em2 -> fences.claim(em2, resource, 15)), "15 is above 10");
    }

    @Test
    void aLowerClaimWaitingForAHigherClaimersTransactionIsRefusedWhenThatOneCommits() throws Exception {
        String resource = unique("resource:waiting");
        inTransaction(em -> fences.claim(em, resource, 1));
        EntityManager higher = factory.createEntityManager();
        try {
            higher.getTransaction().begin();
            fences.claim(higher, resource, 3); // holds the row until it commits
            Future<Throwable> lower = otherServer.submit(() -> {
                try {
                    return inTransaction(em -> fences.claim(em, resource, 2)) == 2 ? null : new AssertionError();
                } catch (Throwable e) {
                    return e;
                }
            });
            higher.getTransaction().commit();
            Throwable outcome = lower.get(30, TimeUnit.SECONDS);
            StaleFenceException refused = assertInstanceOf(StaleFenceException.class, outcome);
            assertEquals(3, refused.currentFence());
        } finally {
            higher.close();
        }
    }

    @Test
    void concurrentFirstClaimsOfAResourceNeverFailButAsStaleAndTheGreatestWins() throws Exception {
        String resource = unique("resource:race");
        int claimers = 8;
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Long> committed = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> refused = new ConcurrentLinkedQueue<>();
        List<Future<?>> all = new ArrayList<>();
        for (int i = 1; i <= claimers; i++) {
            long fence = i;
            all.add(otherServer.submit(() -> {
                start.await();
                try {
                    committed.add(inTransaction(em -> fences.claim(em, resource, fence)));
                } catch (StaleFenceException e) {
                    refused.add(e.fence());
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> each : all) {
            each.get(60, TimeUnit.SECONDS); // any other failure (a duplicate key, a deadlock) fails here
        }
        assertEquals(claimers, committed.size() + refused.size());
        assertTrue(committed.contains((long) claimers), "the greatest fence is never refused");
        assertEquals(claimers, fenceInTable(resource));
        long greatestCommitted =
                committed.stream().mapToLong(Long::longValue).max().orElseThrow();
        refused.forEach(fence -> assertTrue(fence < greatestCommitted, "refused " + fence));
    }

    // ---------------------------------------------------------------- misuse

    @Test
    void aClaimOutsideATransactionIsRefused() {
        EntityManager em = factory.createEntityManager();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fences.claim(em, "r", 1));
            assertTrue(e.getMessage().contains("transaction"), e.getMessage());
        } finally {
            em.close();
        }
    }

    @Test
    void aClaimWithoutAFenceOutsideLockedWorkIsRefused() {
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> inTransaction(em -> fences.claim(em, "r")));
        assertTrue(e.getMessage().contains("No lock is held here"), e.getMessage());
    }

    @Test
    void blankOrLongResourcesAndFencesBelowOneAreRefused() {
        inTransaction(em -> {
            assertThrows(IllegalArgumentException.class, () -> fences.claim(em, " ", 1));
            assertThrows(IllegalArgumentException.class, () -> fences.claim(em, "r".repeat(256), 1));
            assertThrows(IllegalArgumentException.class, () -> fences.claim(em, "r", 0));
            return null;
        });
    }

    @Test
    void aMissingTableIsReportedWithTheFixUnlessCreated() throws SQLException {
        database().dropTable("fences_test_missing");
        Fences without = Fences.builder(factory).table("fences_test_missing").build();
        LockConfigurationException e =
                assertThrows(LockConfigurationException.class, () -> inTransaction(em -> without.claim(em, "r", 1)));
        assertTrue(e.getMessage().contains("DDL.md") && e.getMessage().contains("createTable(true)"), e.getMessage());
        assertThrows(
                LockConfigurationException.class, () -> Fences.builder(factory).table("no; DROP"));
    }

    // ---------------------------------------------------------------- helpers

    /** Runs {@code work} in a transaction of its own and commits it. */
    private <T> T inTransaction(Work<T> work) {
        EntityManager em = factory.createEntityManager();
        try {
            em.getTransaction().begin();
            T result = work.run(em);
            em.getTransaction().commit();
            return result;
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /**
     * Commits a transaction marked rollback-only, as a careless caller would: Hibernate rolls it back, and throws
     * {@link RollbackException} only with its JPA transaction compliance on.
     */
    private static void commitAnyway(EntityManager em) {
        try {
            em.getTransaction().commit();
        } catch (RollbackException rolledBack) {
            // what JPA compliance answers; either way nothing was committed
        }
    }

    /** What a transaction of a test does. */
    @FunctionalInterface
    interface Work<T> {
        T run(EntityManager em);
    }

    private static void insertNote(EntityManager em, String id, String resource) {
        em.createNativeQuery("INSERT INTO " + NOTES + " (id, resource) VALUES (?1, ?2)")
                .setParameter(1, id)
                .setParameter(2, resource)
                .executeUpdate();
    }

    private boolean noteExists(String id) throws SQLException {
        try (Connection connection = database().connect();
                PreparedStatement select = connection.prepareStatement("SELECT 1 FROM " + NOTES + " WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    private long fenceInTable(String resource) {
        try (Connection connection = database().connect();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT fence FROM " + Fences.DEFAULT_TABLE + " WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                assertTrue(row.next(), "a fence row for " + resource);
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockLostException;
import dev.exclusive.LockRegistry;
import dev.exclusive.Locks;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Fences.claim(em, resource) promises to claim "whether or not its lease has run out since: the database
 * decides", and a stale holder to get StaleFenceException (a LockLostException) with its transaction rollback-only.
 * Once the handle's own lease estimate has run out (a pause longer than the ttl: the very case fences exist for),
 * Lock.fence() is empty and the claim throws IllegalStateException instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FencesExpiredLeaseTest {

    private EntityManagerFactory factory;
    private JpaLockStore store;
    private LockRegistry locks;
    private Fences fences;

    @BeforeAll
    void open() {
        factory = TestDatabase.H2.open();
        store = JpaLockStore.builder(factory).createTable(true).build();
        locks = LockRegistry.builder().store("db", store).build();
        fences = Fences.builder(factory).createTable(true).build();
    }

    @AfterAll
    void close() {
        locks.close();
        store.close();
        factory.close();
    }

    @Test
    void aHolderWhoseLeaseRanOutButWasNotOvertakenIsDecidedByTheDatabaseOrToldItLostTheLock() throws Exception {
        String name = "expired-" + UUID.randomUUID();
        String resource = "resource:" + name;
        long[] fence = new long[1];
        locks.lock(name, Duration.ofMillis(300)).get(() -> {
            fence[0] = Locks.assertHeld().fence().getAsLong();
            Thread.sleep(600); // a pause longer than the ttl; nobody else takes the lock
            EntityManager em = factory.createEntityManager();
            try {
                em.getTransaction().begin();
                try {
                    // javadoc: claims "whether or not its lease has run out since: the database decides"
                    assertEquals(fence[0], fences.claim(em, resource));
                } catch (LockLostException lost) {
                    // or, at the least, a lost lock (as README promises a stale holder) ...
                    assertTrue(em.getTransaction().getRollbackOnly(), "... with a rollback-only transaction");
                }
            } finally {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                em.close();
            }
            return null;
        });
    }

    @Test
    void aHolderWhoseLeaseRanOutAndWasOvertakenGetsALockLostExceptionAndARollbackOnlyTransaction() throws Exception {
        String name = "overtaken-" + UUID.randomUUID();
        String resource = "resource:" + name;
        locks.lock(name, Duration.ofMillis(300)).get(() -> {
            Thread.sleep(600); // the lease runs out ...
            // ... and a newer holder takes the lock and claims the resource
            Thread newer =
                    new Thread(() -> locks.lock(name, Duration.ofSeconds(30)).get(() -> {
                        EntityManager em2 = factory.createEntityManager();
                        em2.getTransaction().begin();
                        fences.claim(em2, resource);
                        em2.getTransaction().commit();
                        em2.close();
                        return null;
                    }));
            newer.start();
            newer.join();
            EntityManager em = factory.createEntityManager();
            try {
                em.getTransaction().begin();
                RuntimeException refused = assertThrows(RuntimeException.class, () -> fences.claim(em, resource));
                assertInstanceOf(
                        LockLostException.class,
                        refused,
                        "README: StaleFenceException, a" + " LockLostException; got " + refused);
                assertTrue(em.getTransaction().getRollbackOnly(), "the transaction is rollback-only");
            } finally {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                em.close();
            }
            return null;
        });
    }
}

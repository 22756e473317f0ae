package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionImple;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.transaction.Status;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store over a JTA persistence unit, with Narayana in Java SE: its operations run in JTA transactions of their
 * own, and the timeout it gives them stays with them. A transaction timeout is a setting of the thread, so one that
 * the store left behind would cut short the next container transaction of a pooled server thread.
 */
class JtaPersistenceUnitTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);

    private static TransactionManager transactions;
    private static EntityManagerFactory factory;
    private static JpaLockStore store;

    @BeforeAll
    static void narayana() {
        transactions = Narayana.transactionManager();
        factory = Persistence.createEntityManagerFactory("exclusive-h2-jta");
        store = JpaLockStore.builder(factory)
                .transactionManager(transactions)
                .createTable(true)
                .timeout(STORE_TIMEOUT)
                .build();
    }

    @AfterAll
    static void close() {
        if (store != null) {
            store.close();
        }
        if (factory != null) {
            factory.close();
        }
    }

    @AfterEach
    void noTransactionLeftOnTheThread() throws Exception {
        if (transactions.getTransaction() != null) {
            transactions.rollback();
        }
    }

    @Test
    void operationsLeaveTheThreadsNextTransactionWithTheDefaultTimeout() throws Exception {
        String name = "jta-" + UUID.randomUUID();
        assertTrue(store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)).acquired());
        assertTrue(store.inspect(name).isPresent());
        assertTrue(store.extend(name, "a", Duration.ofSeconds(30)));
        assertTrue(store.release(name, "a"));
        assertEquals(defaultTimeoutSeconds(), timeoutOfTheNextTransaction());
    }

    @Test
    void aFailedOperationLeavesTheDefaultTimeoutToo() throws Exception {
        JpaLockStore missingTable = JpaLockStore.builder(factory)
                .transactionManager(transactions)
                .table("exclusive_lock_missing")
                .timeout(STORE_TIMEOUT)
                .build();
        try (missingTable) {
            assertThrows(LockStoreUnavailableException.class, () -> missingTable.inspect("x"));
        }
        assertEquals(defaultTimeoutSeconds(), timeoutOfTheNextTransaction());
    }

    @Test
    void theCallersTransactionIsSuspendedAndResumedWithItsOwnTimeout() throws Exception {
        transactions.setTransactionTimeout(300);
        transactions.begin();
        transactions.setTransactionTimeout(0);
        Transaction callers = transactions.getTransaction();
        String name = "jta-" + UUID.randomUUID();
        assertTrue(store.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)).acquired());
        assertSame(callers, transactions.getTransaction(), "the caller's transaction is back on the thread");
        assertEquals(Status.STATUS_ACTIVE, callers.getStatus());
        assertEquals(300, ((TransactionImple) callers).getTimeout());
        transactions.rollback();
        assertTrue(store.inspect(name).isPresent(), "the caller's rollback does not undo the store's commit");
        assertTrue(store.release(name, "a"));
    }

    @Test
    void withHibernatesDefaultsTooTheStoreStaysOutOfTheCallersTransaction() throws Exception {
        // Hibernate hands out getTransaction() on a JTA entity manager unless JPA transaction compliance is on, and
        // that EntityTransaction joins the caller's transaction: it would register its synchronization there.
        try (EntityManagerFactory hibernateDefaults = Persistence.createEntityManagerFactory(
                        "exclusive-h2-jta", Map.of("hibernate.jpa.compliance.transaction", "false"));
                JpaLockStore lenient = JpaLockStore.builder(hibernateDefaults)
                        .transactionManager(transactions)
                        .createTable(true)
                        .build()) {
            String name = "jta-" + UUID.randomUUID();
            transactions.begin();
            TransactionImple callers = (TransactionImple) transactions.getTransaction();
            assertTrue(lenient.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertSame(callers, transactions.getTransaction());
            assertEquals(Map.of(), callers.getSynchronizations(), "nothing of the store's work joined the caller's");
            transactions.rollback();
            assertTrue(lenient.release(name, "a"));
        }
    }

    @Test
    void aStaleFenceClaimMarksTheCallersJtaTransactionRollbackOnly() throws Exception {
        Fences fences = Fences.builder(factory)
                .transactionManager(transactions)
                .createTable(true)
                .build();
        String resource = "jta-" + UUID.randomUUID();
        transactions.begin();
        EntityManager newer = factory.createEntityManager();
        newer.joinTransaction();
        assertEquals(7, fences.claim(newer, resource, 7));
        newer.close();
        transactions.commit();

        transactions.begin();
        EntityManager stale = factory.createEntityManager();
        stale.joinTransaction();
        assertThrows(StaleFenceException.class, () -> fences.claim(stale, resource, 5));
        stale.close();
        assertEquals(Status.STATUS_MARKED_ROLLBACK, transactions.getStatus());
        transactions.rollback();
    }

    private static int defaultTimeoutSeconds() {
        int seconds = arjPropertyManager.getCoordinatorEnvironmentBean().getDefaultTimeout();
        assertNotEquals(STORE_TIMEOUT.toSeconds(), seconds, "the test needs a default unlike the store's timeout");
        return seconds;
    }

    /** Begins a transaction as a container would on this thread, and reads its timeout. */
    private static int timeoutOfTheNextTransaction() throws Exception {
        transactions.begin();
        try {
            return ((TransactionImple) transactions.getTransaction()).getTimeout();
        } finally {
            transactions.rollback();
        }
    }
}

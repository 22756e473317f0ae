package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.Locks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** JTA in Java SE with Narayana: the interceptor finds the registry as a CDI bean, as on a server through JNDI. */
class TransactionDeferralTest {

    static class Narayana {
        @Produces
        @Singleton
        TransactionSynchronizationRegistry registry() {
            return new TransactionSynchronizationRegistryImple();
        }
    }

    @ApplicationScoped
    static class Stock {
        @Inject
        LockRegistry registry;

        @Exclusive("stock:{0}")
        public boolean reserve(String sku) {
            return registry.lock("stock:" + sku, 1).isLocked();
        }

        @Exclusive("stock:{0}")
        public Lock current(String sku) {
            return Locks.assertHeld();
        }

        @Inject
        TransactionSynchronizationRegistry transactions;

        /** As {@code EJBContext.setRollbackOnly()}, or a nested call that failed, marks the caller's transaction. */
        @Exclusive("stock:{0}")
        public boolean cancel(String sku) {
            transactions.setRollbackOnly();
            return true;
        }

        @Exclusive(value = "stock:{0}", ttl = 1, autoExtend = true)
        public boolean cancelRenewed(String sku) {
            transactions.setRollbackOnly();
            return true;
        }
    }

    static TransactionManager transactions;
    Deployment deployment;
    Stock stock;
    LockRegistry registry;

    @BeforeAll
    static void narayana() {
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
                .setObjectStoreDir(
                        Path.of("target", "narayana").toAbsolutePath().toString());
        transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    @BeforeEach
    void start() {
        deployment = Deployment.start(Map.of(), Narayana.class, Stock.class);
        stock = deployment.select(Stock.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() throws Exception {
        if (transactions.getTransaction() != null) {
            transactions.rollback();
        }
        deployment.close();
    }

    private boolean locked(String sku) {
        return registry.lock("stock:" + sku, 1).isLocked();
    }

    @Test
    void insideATransactionTheReleaseWaitsForTheCommit() throws Exception {
        transactions.begin();

        assertThat(stock.reserve("a")).isTrue();
        assertThat(locked("a"))
                .as("held after the method returned, until the transaction ends")
                .isTrue();
        assertThat(stock.reserve("a"))
                .as("the same transaction calls again without waiting for itself")
                .isTrue();

        transactions.commit();
        assertThat(locked("a")).isFalse();
    }

    @Test
    void aLaterCallInTheSameTransactionRunsUnderTheSameHold() throws Exception {
        transactions.begin();

        Lock first = stock.current("d");
        Lock second = stock.current("d");

        assertThat(second).isSameAs(first);
        assertThat(Locks.current()).as("the caller runs no work under it").isEmpty();
        transactions.commit();
    }

    @Test
    void aRollbackReleasesToo() throws Exception {
        transactions.begin();
        stock.reserve("b");
        assertThat(locked("b")).isTrue();

        transactions.rollback();
        assertThat(locked("b")).isFalse();
    }

    /**
     * A transaction marked rollback-only during the method refuses a synchronization (Narayana, as WildFly runs it),
     * so the release cannot wait for its end: it happens when the method returns, and the method's result stands.
     * Before, the refusal escaped as the call's exception and the lock stayed held; with auto-extend, for good.
     */
    @Test
    void aTransactionMarkedRollbackOnlyByTheMethodStillEndsTheHold() throws Exception {
        transactions.begin();
        assertThat(stock.cancel("e")).isTrue();
        assertThat(stock.cancelRenewed("f")).isTrue();
        transactions.rollback();

        assertThat(locked("e")).as("released").isFalse();
        Thread.sleep(2_500); // more than two of its 1 s ttls: a renewal would have kept it
        assertThat(locked("f")).as("released, and no longer renewed").isFalse();
    }

    @Test
    void withoutATransactionTheLockIsReleasedAtMethodExit() {
        assertThat(stock.reserve("c")).isTrue();
        assertThat(locked("c")).isFalse();
    }
}

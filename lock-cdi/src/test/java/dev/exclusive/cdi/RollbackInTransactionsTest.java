package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import com.arjuna.ats.jta.cdi.TransactionExtension;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorRequired;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import dev.exclusive.LockLostException;
import dev.exclusive.LockRegistry;
import dev.exclusive.OnLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@code @Exclusive(onLost = ROLLBACK)} inside JTA transactions (Narayana): a hold that is gone before the commit
 * rolls the method's transaction back and the caller gets {@link LockLostException}. The work's write is a
 * {@link Ledger} entry that records how its transaction ended. Every case runs the same work under {@code LOG}
 * as well, which commits: the policy is what rolls back.
 */
class RollbackInTransactionsTest {

    private static final long TTL = 150;

    static TransactionManager narayana;

    @BeforeAll
    static void narayana() {
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
                .setObjectStoreDir(
                        Path.of("target", "narayana").toAbsolutePath().toString());
        narayana = com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    /** The registry as a CDI bean, as Transactions finds it. */
    static class RegistryOnly {
        @Produces
        @Singleton
        TransactionSynchronizationRegistry registry() {
            return new TransactionSynchronizationRegistryImple();
        }
    }

    /** The TransactionManager as a CDI bean. */
    static class Manager {
        @Produces
        @Singleton
        TransactionManager manager() {
            return narayana;
        }
    }

    @Singleton // no client proxy: the test reads its fields
    static class Losses {
        final CountDownLatch lost = new CountDownLatch(1);

        /** The transaction's status once the method saw the LockLost event, while it still ran. */
        volatile int statusWhenSeen = -1;

        void lost(@Observes LockLost event) {
            lost.countDown();
        }
    }

    /** The work's write: how each transaction that wrote ended ({@code Status.STATUS_COMMITTED} or rolled back). */
    @Singleton
    static class Ledger {
        @Inject
        TransactionSynchronizationRegistry transactions;

        final List<Integer> outcomes = new CopyOnWriteArrayList<>();

        void write() {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {}

                @Override
                public void afterCompletion(int status) {
                    outcomes.add(status);
                }
            });
        }
    }

    /** Methods that run in their caller's transaction, as an EJB's container-managed one. */
    @ApplicationScoped
    static class Postings {
        @Inject
        Ledger ledger;

        @Inject
        Losses losses;

        @Inject
        LockRegistry registry;

        @Inject
        TransactionSynchronizationRegistry transactions;

        @Exclusive(value = "renewed", ttl = TTL, unit = ChronoUnit.MILLIS, autoExtend = true, onLost = OnLost.ROLLBACK)
        public String renewed() throws Exception {
            return loseWhileRenewing("renewed");
        }

        @Exclusive(value = "renewed-logged", ttl = TTL, unit = ChronoUnit.MILLIS, autoExtend = true)
        public String renewedLogged() throws Exception {
            return loseWhileRenewing("renewed-logged");
        }

        /** An operator force-releases the lock mid-method; the method goes on until a renewal has found out. */
        private String loseWhileRenewing(String name) throws Exception {
            ledger.write();
            registry.forceRelease(name);
            if (!losses.lost.await(10, TimeUnit.SECONDS)) {
                return "no renewal found the loss";
            }
            losses.statusWhenSeen = transactions.getTransactionStatus();
            return "posted";
        }

        @Exclusive(value = "expired", ttl = TTL, unit = ChronoUnit.MILLIS, onLost = OnLost.ROLLBACK)
        public String outlast() {
            ledger.write();
            return OnLostTest.outlastLease(registry, "expired");
        }

        @Exclusive(value = "expired-logged", ttl = TTL, unit = ChronoUnit.MILLIS)
        public String outlastLogged() {
            ledger.write();
            return OnLostTest.outlastLease(registry, "expired-logged");
        }

        @Exclusive(value = "window", onLost = OnLost.ROLLBACK)
        public String post() {
            ledger.write();
            return "posted";
        }

        @Exclusive(value = "window-logged")
        public String postLogged() {
            ledger.write();
            return "posted";
        }
    }

    Deployment deployment;
    Postings postings;
    Ledger ledger;
    LockRegistry registry;

    void start(Class<?>... transactionBeans) {
        List<Class<?>> beans = new java.util.ArrayList<>(List.of(transactionBeans));
        beans.addAll(List.of(Losses.class, Ledger.class, Postings.class));
        deployment = Deployment.start(Map.of(), beans.toArray(Class<?>[]::new));
        postings = deployment.select(Postings.class);
        ledger = deployment.select(Ledger.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() throws SystemException {
        if (narayana.getTransaction() != null) {
            narayana.rollback();
        }
        if (deployment != null) {
            deployment.close();
        }
    }

    @Nested
    class InTheCallersTransaction {

        @BeforeEach
        void start() {
            RollbackInTransactionsTest.this.start(RegistryOnly.class, Manager.class);
        }

        @Test
        void aRenewalThatFindsTheHoldGoneMarksTheTransactionAtOnceAndTheCallerGetsLockLostException() throws Exception {
            narayana.begin();

            assertThatThrownBy(postings::renewed)
                    .isInstanceOfSatisfying(
                            LockLostException.class,
                            e -> assertThat(e.lockName()).contains("renewed"))
                    .hasMessageContaining("its transaction is marked rollback-only");
            assertThat(deployment.select(Losses.class).statusWhenSeen)
                    .as("marked rollback-only from the renewal thread while the method still ran")
                    .isEqualTo(Status.STATUS_MARKED_ROLLBACK);
            assertThatThrownBy(narayana::commit).isInstanceOf(RollbackException.class);
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);
        }

        @Test
        void underLogTheSameLossLetsTheTransactionCommit() throws Exception {
            narayana.begin();

            assertThat(postings.renewedLogged()).isEqualTo("posted");
            assertThat(deployment.select(Losses.class).statusWhenSeen).isEqualTo(Status.STATUS_ACTIVE);
            narayana.commit();
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_COMMITTED);
        }

        @Test
        void aLeaseThatRunsOutBeforeTheMethodReturnsRollsTheTransactionBack() throws Exception {
            narayana.begin();

            assertThatThrownBy(postings::outlast).isInstanceOf(LockLostException.class);
            assertThat(narayana.getStatus()).isEqualTo(Status.STATUS_MARKED_ROLLBACK);
            assertThatThrownBy(narayana::commit).isInstanceOf(RollbackException.class);
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);

            narayana.begin();
            assertThat(postings.outlastLogged()).as("LOG").isEqualTo("done");
            narayana.commit();
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK, Status.STATUS_COMMITTED);
        }

        @Test
        void aHoldLostAfterTheMethodReturnedIsCaughtBeforeTheCommit() throws Exception {
            narayana.begin();
            assertThat(postings.post()).isEqualTo("posted");
            assertThat(registry.forceRelease("window"))
                    .as("held until the commit; an operator frees it first")
                    .isTrue();

            Throwable commit = catchThrowable(narayana::commit);

            assertThat(commit)
                    .as("Narayana hands on the check's exception as the cause")
                    .isInstanceOf(RollbackException.class)
                    .cause()
                    .isInstanceOf(LockLostException.class)
                    .hasMessageStartingWith("Lock 'window' in store 'memory' was lost while @Exclusive on ")
                    .hasMessageContaining("its transaction is rolled back instead of committed");
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);

            narayana.begin();
            assertThat(postings.postLogged()).isEqualTo("posted");
            registry.forceRelease("window-logged");
            narayana.commit();
            assertThat(ledger.outcomes).as("LOG").containsExactly(Status.STATUS_ROLLEDBACK, Status.STATUS_COMMITTED);
        }

        @Test
        void aHoldThatLastsCommits() throws Exception {
            narayana.begin();
            assertThat(postings.post()).isEqualTo("posted");
            narayana.commit();

            assertThat(ledger.outcomes).containsExactly(Status.STATUS_COMMITTED);
            assertThat(registry.lock("window", 1).isLocked()).isFalse();
        }
    }

    @Nested
    class WithoutATransactionManager {

        @BeforeEach
        void start() {
            RollbackInTransactionsTest.this.start(RegistryOnly.class);
        }

        @Test
        void theRenewalCannotMarkTheTransactionButTheCheckWhenTheMethodReturnsStillRollsItBack() throws Exception {
            try (LogRecorder log = new LogRecorder()) {
                narayana.begin();

                assertThatThrownBy(postings::renewed).isInstanceOf(LockLostException.class);
                assertThat(deployment.select(Losses.class).statusWhenSeen)
                        .as("no TransactionManager: nothing marked it from the renewal thread")
                        .isEqualTo(Status.STATUS_ACTIVE);
                assertThatThrownBy(narayana::commit).isInstanceOf(RollbackException.class);
                assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);
                assertThat(log.records).anySatisfy(record -> {
                    assertThat(record.getLevel()).isEqualTo(Level.INFO);
                    assertThat(record.getMessage())
                            .startsWith("No JTA TransactionManager (CDI bean, or JNDI java:comp/TransactionManager,");
                });
            }
        }
    }

    @Nested
    class WithATransactionManagerInJndi {

        @Test
        void theRenewalMarksTheTransactionAsWithACdiBean() throws Exception {
            try (FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:comp/TransactionManager", narayana))) {
                RollbackInTransactionsTest.this.start(RegistryOnly.class);
                narayana.begin();

                assertThatThrownBy(postings::renewed).isInstanceOf(LockLostException.class);
                assertThat(deployment.select(Losses.class).statusWhenSeen).isEqualTo(Status.STATUS_MARKED_ROLLBACK);
            }
        }
    }

    /** Methods whose transaction {@code @Transactional} begins inside {@code @Exclusive}, and commits before it. */
    @ApplicationScoped
    static class Orders {
        @Inject
        Ledger ledger;

        @Inject
        LockRegistry registry;

        @Inject
        TransactionManager transactions;

        @Transactional
        @Exclusive(value = "order", onLost = OnLost.ROLLBACK)
        public String place() {
            ledger.write();
            registry.forceRelease("order");
            return "placed";
        }

        @Transactional
        @Exclusive(value = "order-logged")
        public String placeLogged() {
            ledger.write();
            registry.forceRelease("order-logged");
            return "placed";
        }

        @Transactional
        @Exclusive(value = "late", onLost = OnLost.ROLLBACK)
        public String placeLosingAtCommit() throws Exception {
            ledger.write();
            loseAsTheTransactionCommits("late");
            return "placed";
        }

        @Transactional
        @Exclusive(value = "late-logged")
        public String placeLosingAtCommitLogged() throws Exception {
            ledger.write();
            loseAsTheTransactionCommits("late-logged");
            return "placed";
        }

        /**
         * A plain synchronization's beforeCompletion runs before every interposed one: it frees the lock after the
         * method returned and before the hold is checked for the commit.
         */
        private void loseAsTheTransactionCommits(String name) throws Exception {
            transactions.getTransaction().registerSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    registry.forceRelease(name);
                }

                @Override
                public void afterCompletion(int status) {}
            });
        }
    }

    @Nested
    class InATransactionThatTransactionalBegins {

        Orders orders;

        @BeforeEach
        void start() {
            deployment = Deployment.start(
                    Map.of(),
                    List.of(new TransactionExtension()),
                    TransactionalInterceptorRequired.class,
                    Ledger.class,
                    Orders.class);
            orders = deployment.select(Orders.class);
            ledger = deployment.select(Ledger.class);
        }

        @Test
        void aHoldGoneWhenTheMethodReturnsRollsBackBeforeTransactionalCommits() {
            assertThatThrownBy(orders::place)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("its transaction is marked rollback-only");
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);

            assertThat(orders.placeLogged()).as("LOG").isEqualTo("placed");
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK, Status.STATUS_COMMITTED);
        }

        @Test
        void aHoldGoneAsTheTransactionCommitsRollsItBackAndTheCallerGetsLockLostException() throws Exception {
            assertThatThrownBy(orders::placeLosingAtCommit)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("its transaction was rolled back instead of committed")
                    .hasCauseInstanceOf(RollbackException.class);
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK);

            assertThat(orders.placeLosingAtCommitLogged()).as("LOG").isEqualTo("placed");
            assertThat(ledger.outcomes).containsExactly(Status.STATUS_ROLLEDBACK, Status.STATUS_COMMITTED);
        }
    }
}

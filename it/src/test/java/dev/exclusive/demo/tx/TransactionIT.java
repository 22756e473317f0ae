package dev.exclusive.demo.tx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.shop.Catalog;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Exclusive} in container-managed transactions: the lock is released only once the transaction has
 * completed, so the next holder never reads what the previous one has not committed.
 */
@ExtendWith(ArquillianExtension.class)
class TransactionIT {

    private static final int CALLERS = 20;

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("tx-it.war").addClasses(StockCounters.class, StatelessStockCounter.class);
    }

    @Inject
    StockCounters counters;

    @Inject
    StatelessStockCounter statelessCounter;

    @Inject
    Catalog catalog;

    @Inject
    LockRegistry locks;

    @Resource(lookup = "java:comp/UserTransaction")
    UserTransaction transaction;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    @Test
    void lockTakenInsideTheCallersTransactionIsHeldUntilCommit() throws Exception {
        transaction.begin();
        try {
            counters.touchInCallersTransaction("commit");
            assertThat(locks.lock("it:tx:joined:commit", 1).isLocked())
                    .as("held before the commit")
                    .isTrue();
        } finally {
            transaction.commit();
        }
        assertThat(locks.lock("it:tx:joined:commit", 1).isLocked())
                .as("released by the commit")
                .isFalse();
    }

    @Test
    void lockTakenInsideTheCallersTransactionIsReleasedByRollback() throws Exception {
        transaction.begin();
        try {
            counters.touchInCallersTransaction("rollback");
            assertThat(locks.lock("it:tx:joined:rollback", 1).isLocked()).isTrue();
        } finally {
            transaction.rollback();
        }
        assertThat(locks.lock("it:tx:joined:rollback", 1).isLocked()).isFalse();
    }

    @Test
    void transactionalCdiReadModifyWriteLosesNoUpdate() throws Exception {
        catalog.reset(3, 0);
        runTogether(() -> counters.addOne(3));
        assertThat(counters.stock(3)).isEqualTo(CALLERS);
    }

    @Test
    void statelessContainerManagedReadModifyWriteLosesNoUpdate() throws Exception {
        catalog.reset(3, 0);
        runTogether(() -> statelessCounter.addOne(3));
        assertThat(counters.stock(3)).isEqualTo(CALLERS);
    }

    private void runTogether(Runnable call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            calls.add(executor.submit(() -> {
                start.await();
                call.run();
                return null;
            }));
        }
        start.countDown();
        for (Future<?> each : calls) {
            each.get(120, TimeUnit.SECONDS);
        }
    }
}

package dev.exclusive.demo.semantics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.LockBusyException;
import dev.exclusive.demo.Deployments;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.io.File;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.asset.Asset;
import org.jboss.shrinkwrap.api.asset.FileAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Exclusive} get, block and skip semantics inside Open Liberty, on a CDI bean, a {@code @Stateless} and a
 * {@code @Singleton} EJB. A second caller runs on a managed thread while the first holds the lock.
 */
@ExtendWith(ArquillianExtension.class)
class ExclusiveSemanticsIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.slim("semantics-it.war", Deployments.LOCK_CONFIG)
                .addClasses(Guarded.class, GuardedCdiBean.class, GuardedStatelessBean.class, GuardedSingletonBean.class)
                .addAsWebInfResource(ejbJarWithLockBusyAsApplicationException(), "ejb-jar.xml");
    }

    /** As in the demo: LockBusyException reaches the caller of an EJB unwrapped. */
    private static Asset ejbJarWithLockBusyAsApplicationException() {
        return new FileAsset(new File("src/main/webapp/WEB-INF/ejb-jar.xml"));
    }

    @Inject
    GuardedCdiBean cdiBean;

    @Inject
    GuardedStatelessBean statelessBean;

    @Inject
    GuardedSingletonBean singletonBean;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    @Test
    void cdiBeanThrowsLockBusyWhileAnotherCallerHoldsTheLock() throws Exception {
        secondCallerIsRefusedWhileTheFirstHolds(cdiBean);
    }

    @Test
    void statelessBeanThrowsLockBusyWhileAnotherCallerHoldsTheLock() throws Exception {
        secondCallerIsRefusedWhileTheFirstHolds(statelessBean);
    }

    @Test
    void singletonBeanThrowsLockBusyWhileAnotherCallerHoldsTheLock() throws Exception {
        secondCallerIsRefusedWhileTheFirstHolds(singletonBean);
    }

    @Test
    void cdiBeanWaiterRunsRightAfterTheHolderLeaves() throws Exception {
        waiterRunsAfterTheHolder(cdiBean);
    }

    @Test
    void statelessBeanWaiterRunsRightAfterTheHolderLeaves() throws Exception {
        waiterRunsAfterTheHolder(statelessBean);
    }

    @Test
    void singletonBeanWaiterRunsRightAfterTheHolderLeaves() throws Exception {
        waiterRunsAfterTheHolder(singletonBean);
    }

    @Test
    void cdiBeanSkipsWhileBusyAndRunsWhenFree() throws Exception {
        skippedWhileBusy(cdiBean);
    }

    @Test
    void statelessBeanSkipsWhileBusyAndRunsWhenFree() throws Exception {
        skippedWhileBusy(statelessBean);
    }

    @Test
    void singletonBeanSkipsWhileBusyAndRunsWhenFree() throws Exception {
        skippedWhileBusy(singletonBean);
    }

    private void secondCallerIsRefusedWhileTheFirstHolds(Guarded bean) throws Exception {
        String key = UUID.randomUUID().toString();
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch leave = new CountDownLatch(1);
        Future<String> holder = holdInBackground(bean, key, leave, log);

        assertThatThrownBy(() -> bean.hold(key, new CountDownLatch(1), new CountDownLatch(0), log))
                .isInstanceOf(LockBusyException.class)
                .satisfies(e -> assertThat(((LockBusyException) e).lockName())
                        .hasValueSatisfying(name -> assertThat(name).endsWith(key)));
        leave.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("hold");
        assertThat(bean.hold(key, new CountDownLatch(1), new CountDownLatch(0), log))
                .isEqualTo("hold");
        assertThat(log).containsExactly("hold", "hold");
    }

    private void waiterRunsAfterTheHolder(Guarded bean) throws Exception {
        String key = UUID.randomUUID().toString();
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch leave = new CountDownLatch(1);
        Future<String> holder = holdInBackground(bean, key, leave, log);

        Future<String> waiter = executor.submit(() -> bean.waitFor(key, log));
        assertThat(waiter.isDone()).isFalse();
        leave.countDown();

        assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("wait");
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("hold");
        assertThat(log).containsExactly("hold", "wait");
    }

    private void skippedWhileBusy(Guarded bean) throws Exception {
        String key = UUID.randomUUID().toString();
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch leave = new CountDownLatch(1);
        Future<String> holder = holdInBackground(bean, key, leave, log);

        assertThat(bean.skipIfBusy(key, log)).isEmpty();
        leave.countDown();
        holder.get(30, TimeUnit.SECONDS);

        assertThat(bean.skipIfBusy(key, log)).contains("skip-ran");
        assertThat(log).containsExactly("hold", "skip-ran");
    }

    /** Starts {@code hold} on a managed thread and returns once it holds the lock. */
    private Future<String> holdInBackground(Guarded bean, String key, CountDownLatch leave, List<String> log)
            throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        Future<String> holder = executor.submit(() -> bean.hold(key, entered, leave, log));
        assertThat(entered.await(30, TimeUnit.SECONDS))
                .as("the holder entered the method")
                .isTrue();
        return holder;
    }
}

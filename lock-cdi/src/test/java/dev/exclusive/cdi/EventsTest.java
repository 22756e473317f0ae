package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.Lock;
import dev.exclusive.LockBusyException;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.security.Principal;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventsTest {

    @Singleton
    static class Recorder {
        final List<Object> events = new CopyOnWriteArrayList<>();
        final CountDownLatch lost = new CountDownLatch(1);

        void acquired(@Observes LockAcquired event) {
            events.add(event);
        }

        void released(@Observes LockReleased event) {
            events.add(event);
        }

        void busy(@Observes LockBusy event) {
            events.add(event);
        }

        void lost(@Observes LockLost event) {
            events.add(event);
            lost.countDown();
        }

        void forceReleased(@Observes LockForceReleased event) {
            events.add(event);
        }
    }

    static class Caller {
        @Produces
        Principal caller() {
            return () -> "operator-ann";
        }
    }

    @ApplicationScoped
    static class Jobs {
        @Exclusive("job")
        public void run() {}

        @Exclusive(value = "renewed", ttl = 150, unit = ChronoUnit.MILLIS, autoExtend = true)
        public void runUntil(CountDownLatch done) throws InterruptedException {
            done.await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void acquiredReleasedBusyAndForceReleasedWithThePrincipalAreFired() {
        try (Deployment deployment = Deployment.start(Map.of(), Recorder.class, Caller.class, Jobs.class)) {
            Recorder recorder = deployment.select(Recorder.class);
            Jobs jobs = deployment.select(Jobs.class);
            LockRegistry registry = deployment.select(LockRegistry.class);

            jobs.run();
            Lock held = registry.lock("job", Duration.ofSeconds(10));
            held.get();
            assertThatThrownBy(jobs::run).isInstanceOf(LockBusyException.class);
            registry.forceRelease("job");

            assertThat(recorder.events).hasSize(5);
            assertThat(recorder.events.get(0)).isInstanceOfSatisfying(LockAcquired.class, event -> {
                assertThat(event.storeName()).isEqualTo("memory");
                assertThat(event.lockName()).isEqualTo("job");
                assertThat(event.fence()).isPositive();
            });
            assertThat(recorder.events.get(1))
                    .isEqualTo(new LockReleased("memory", "job", ((LockAcquired) recorder.events.get(0)).owner()));
            assertThat(recorder.events.get(2)).isInstanceOf(LockAcquired.class);
            assertThat(recorder.events.get(3)).isEqualTo(new LockBusy("memory", "job"));
            assertThat(recorder.events.get(4)).isEqualTo(new LockForceReleased("memory", "job", true, "operator-ann"));
        }
    }

    @Test
    void anAutoExtendedHoldWhoseLeaseIsGoneFiresLockLost() throws Exception {
        try (Deployment deployment = Deployment.start(Map.of(), Recorder.class, Jobs.class)) {
            Recorder recorder = deployment.select(Recorder.class);
            Jobs jobs = deployment.select(Jobs.class);
            LockRegistry registry = deployment.select(LockRegistry.class);
            CountDownLatch done = new CountDownLatch(1);
            Thread worker = new Thread(() -> {
                try {
                    jobs.runUntil(done);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            worker.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!registry.lock("renewed", 1).isLocked()) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(registry.forceRelease("renewed")).isTrue();

            assertThat(recorder.lost.await(5, TimeUnit.SECONDS)).isTrue();
            done.countDown();
            worker.join(5000);
            assertThat(recorder.events)
                    .filteredOn(LockLost.class::isInstance)
                    .singleElement()
                    .isInstanceOfSatisfying(
                            LockLost.class, lost -> assertThat(lost.lockName()).isEqualTo("renewed"));
            assertThat(recorder.events)
                    .filteredOn(LockForceReleased.class::isInstance)
                    .singleElement()
                    .isInstanceOfSatisfying(
                            LockForceReleased.class,
                            forced -> assertThat(forced.principalName()).isNull());
        }
    }
}

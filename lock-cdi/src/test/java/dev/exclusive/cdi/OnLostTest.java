package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.LockLostException;
import dev.exclusive.LockRegistry;
import dev.exclusive.OnLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Exclusive(onLost = ...)} outside a transaction: LOG lets the result stand, INTERRUPT stops the method's
 * thread when a renewal finds the lease gone, ROLLBACK turns a result earned without the lock into a
 * {@link LockLostException}. Each policy is set against the same work, so the policy is what makes the difference.
 */
class OnLostTest {

    private static final long TTL = 150;

    @Singleton
    static class Losses {
        final CountDownLatch lost = new CountDownLatch(1);

        void lost(@Observes LockLost event) {
            lost.countDown();
        }
    }

    @ApplicationScoped
    static class Jobs {
        @Inject
        LockRegistry registry;

        /** Waits for {@code done} (10 s at most); tells whether an interrupt ended the wait. */
        @Exclusive(
                value = "interrupted",
                ttl = TTL,
                unit = ChronoUnit.MILLIS,
                autoExtend = true,
                onLost = OnLost.INTERRUPT)
        public String interruptible(CountDownLatch started, CountDownLatch done) {
            return waitFor(started, done);
        }

        @Exclusive(value = "logged", ttl = TTL, unit = ChronoUnit.MILLIS, autoExtend = true)
        public String logged(CountDownLatch started, CountDownLatch done) {
            return waitFor(started, done);
        }

        private static String waitFor(CountDownLatch started, CountDownLatch done) {
            started.countDown();
            try {
                done.await(10, TimeUnit.SECONDS);
                return Thread.interrupted() ? "interrupted after the wait" : "ran to the end";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }

        /** Runs past its lease: returns once the store no longer has the lock. */
        @Exclusive(value = "outlasted", ttl = TTL, unit = ChronoUnit.MILLIS, onLost = OnLost.ROLLBACK)
        public String outlast() {
            return outlastLease(registry, "outlasted");
        }

        @Exclusive(value = "outlasted-logged", ttl = TTL, unit = ChronoUnit.MILLIS)
        public String outlastLogged() {
            return outlastLease(registry, "outlasted-logged");
        }

        /** An operator force-releases the lock while the method runs. */
        @Exclusive(value = "released", onLost = OnLost.ROLLBACK)
        public String forceReleasedMidway() {
            registry.forceRelease("released");
            return "done";
        }

        @Exclusive(value = "released-logged")
        public String forceReleasedMidwayLogged() {
            registry.forceRelease("released-logged");
            return "done";
        }

        @Exclusive(value = "stage", onLost = OnLost.ROLLBACK)
        public CompletableFuture<String> later(CompletableFuture<String> work) {
            return work;
        }
    }

    /** Rolls back through configuration: {@code <class>/Exclusive/onLost=ROLLBACK}. */
    @ApplicationScoped
    static class Configured {
        @Inject
        LockRegistry registry;

        @Exclusive(value = "configured")
        public String forceReleasedMidway() {
            registry.forceRelease("configured");
            return "done";
        }
    }

    static String outlastLease(LockRegistry registry, String name) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (registry.lock(name, 1).isLocked()) {
            assertThat(System.nanoTime() - deadline).as("the lease ends").isNegative();
            Thread.onSpinWait();
        }
        return "done";
    }

    Deployment deployment;
    Jobs jobs;
    LockRegistry registry;

    @BeforeEach
    void start() {
        deployment = Deployment.start(
                Map.of(Configured.class.getName() + "/Exclusive/onLost", "rollback"),
                Losses.class,
                Jobs.class,
                Configured.class);
        jobs = deployment.select(Jobs.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    /**
     * Runs {@code work} on a thread of its own (its interrupt flag must not leak into a pool) and force-releases its
     * lock; once a renewal found the loss, ends the work if {@code thenEnd} (else only an interrupt ends it early).
     */
    private String forceReleasedWhileRunning(String name, boolean thenEnd, WorkWithLatches work) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                result.complete(work.run(started, done));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        worker.start();
        try {
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(registry.forceRelease(name))
                    .as("an operator force-releases it")
                    .isTrue();
            assertThat(deployment.select(Losses.class).lost.await(10, TimeUnit.SECONDS))
                    .as("a renewal found the lease gone")
                    .isTrue();
            if (thenEnd) {
                done.countDown();
            }
            return result.get(15, TimeUnit.SECONDS);
        } finally {
            done.countDown();
            worker.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    interface WorkWithLatches {
        String run(CountDownLatch started, CountDownLatch done);
    }

    @Test
    void interruptStopsTheMethodsThreadWhenARenewalFindsTheLeaseGone() throws Exception {
        assertThat(forceReleasedWhileRunning("interrupted", false, jobs::interruptible))
                .isEqualTo("interrupted");
    }

    @Test
    void logLeavesTheMethodRunning() throws Exception {
        assertThat(forceReleasedWhileRunning("logged", true, jobs::logged)).isEqualTo("ran to the end");
    }

    @Test
    void rollbackTurnsAResultEarnedPastTheLeaseIntoLockLostException() {
        assertThatThrownBy(jobs::outlast)
                .isInstanceOfSatisfying(LockLostException.class, e -> {
                    assertThat(e.lockName()).contains("outlasted");
                    assertThat(e.storeName()).contains("memory");
                })
                .hasMessageStartingWith("Lock 'outlasted' in store 'memory' was lost while @Exclusive on "
                        + Jobs.class.getName() + "#outlast() ran (onLost = ROLLBACK): the method completed, but not"
                        + " under the lock for all of its time.");
        assertThat(jobs.outlastLogged())
                .as("LOG: the same work's result stands")
                .isEqualTo("done");
    }

    @Test
    void rollbackAsksTheStoreWhenTheHandleDoesNotKnow() {
        assertThatThrownBy(jobs::forceReleasedMidway).isInstanceOf(LockLostException.class);
        assertThat(jobs.forceReleasedMidwayLogged()).as("LOG").isEqualTo("done");
    }

    @Test
    void rollbackFailsAStageThatCompletesAfterTheLeaseIsGone() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = jobs.later(work);
        registry.forceRelease("stage");
        work.complete("done");

        assertThatThrownBy(result::join)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(LockLostException.class);

        CompletableFuture<String> held = new CompletableFuture<>();
        CompletableFuture<String> fine = jobs.later(held);
        held.complete("done");
        assertThat(fine.join()).as("a hold that lasted").isEqualTo("done");
        assertThat(registry.lock("stage", 1).isLocked()).isFalse();
    }

    @Test
    void onLostIsOverridableInConfig() {
        assertThatThrownBy(() -> deployment.select(Configured.class).forceReleasedMidway())
                .isInstanceOf(LockLostException.class);
    }
}

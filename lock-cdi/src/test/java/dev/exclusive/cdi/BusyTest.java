package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.Lock;
import dev.exclusive.LockBusyException;
import dev.exclusive.LockRegistry;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BusyTest {

    @Singleton // no client proxy: the test reads its fields
    static class Work {
        final AtomicInteger runs = new AtomicInteger();

        @Exclusive(value = "busy", ttl = 30)
        public String once() {
            runs.incrementAndGet();
            return "ran";
        }

        @Exclusive(value = "busy", maxWait = 5)
        public String waiting() {
            runs.incrementAndGet();
            return "ran";
        }

        @Exclusive(value = "busy", maxWait = 200, unit = java.time.temporal.ChronoUnit.MILLIS)
        public String waitingBriefly() {
            runs.incrementAndGet();
            return "ran";
        }
    }

    @Exclusive(value = "busy", onBusy = OnBusy.SKIP)
    @Singleton // no client proxy: the test reads its fields
    static class Skipping {
        final AtomicInteger runs = new AtomicInteger();

        public void nothing() {
            runs.incrementAndGet();
        }

        public String object() {
            runs.incrementAndGet();
            return "ran";
        }

        public Optional<String> optional() {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        public OptionalInt optionalInt() {
            runs.incrementAndGet();
            return OptionalInt.of(1);
        }

        public boolean primitiveBoolean() {
            runs.incrementAndGet();
            return true;
        }

        public Boolean boxedBoolean() {
            runs.incrementAndGet();
            return true;
        }

        public int primitiveInt() {
            runs.incrementAndGet();
            return 1;
        }

        public long primitiveLong() {
            runs.incrementAndGet();
            return 1;
        }

        public double primitiveDouble() {
            runs.incrementAndGet();
            return 1;
        }

        public Integer boxedInt() {
            runs.incrementAndGet();
            return 1;
        }

        public char primitiveChar() {
            runs.incrementAndGet();
            return 'x';
        }

        public CompletionStage<Optional<String>> stageOfOptional() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.of("ran"));
        }

        public CompletableFuture<Boolean> futureOfBoolean() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(true);
        }

        public CompletionStage<String> stageOfObject() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }
    }

    Deployment deployment;
    LockRegistry registry;
    Lock other;

    @BeforeEach
    void holdTheLockElsewhere() {
        deployment = Deployment.start(Map.of(), Work.class, Skipping.class);
        registry = deployment.select(LockRegistry.class);
        other = registry.lock("busy", Duration.ofSeconds(20));
        assertThat(other.get()).isTrue();
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void withoutWaitOneAttemptThrowsLockBusyExceptionCarryingLockStoreAndRetryAfter() {
        Work work = deployment.select(Work.class);

        assertThatThrownBy(work::once).isInstanceOfSatisfying(LockBusyException.class, busy -> {
            assertThat(busy.lockName()).contains("busy");
            assertThat(busy.storeName()).contains("memory");
            assertThat(busy.retryAfter())
                    .hasValueSatisfying(
                            retry -> assertThat(retry).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20)));
            assertThat(busy)
                    .hasMessageContaining("Lock 'busy' in store 'memory'")
                    .hasMessageContaining(Work.class.getName() + "#once()")
                    .hasMessageContaining("one attempt");
        });
        assertThat(work.runs).hasValue(0);
    }

    @Test
    void withWaitTheCallBlocksUntilTheHolderReleases() {
        Work work = deployment.select(Work.class);
        ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
        try {
            releaser.schedule(other::release, 300, TimeUnit.MILLISECONDS);
            long start = System.nanoTime();

            assertThat(work.waiting()).isEqualTo("ran");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        } finally {
            releaser.shutdownNow();
        }
    }

    @Test
    void aWaitThatRunsOutThrows() {
        Work work = deployment.select(Work.class);

        assertThatThrownBy(work::waitingBriefly)
                .isInstanceOf(LockBusyException.class)
                .hasMessageContaining("a wait of PT0.2S");
        assertThat(work.runs).hasValue(0);
    }

    @Test
    void skipReturnsTheReturnTypesNothingWithoutRunningTheMethod() {
        Skipping skipping = deployment.select(Skipping.class);

        skipping.nothing();
        assertThat(skipping.object()).isNull();
        assertThat(skipping.optional()).isEmpty();
        assertThat(skipping.optionalInt()).isEmpty();
        assertThat(skipping.primitiveBoolean()).isFalse();
        assertThat(skipping.boxedBoolean()).isFalse();
        assertThat(skipping.primitiveInt()).isZero();
        assertThat(skipping.primitiveLong()).isZero();
        assertThat(skipping.primitiveDouble()).isZero();
        assertThat(skipping.boxedInt()).isZero();
        assertThat(skipping.primitiveChar()).isEqualTo('\0');
        assertThat(skipping.stageOfOptional().toCompletableFuture().join()).isEmpty();
        assertThat(skipping.futureOfBoolean().join()).isFalse();
        assertThat(skipping.stageOfObject().toCompletableFuture().join()).isNull();

        assertThat(skipping.runs).hasValue(0);
    }

    @Test
    void skipRunsTheMethodWhenTheLockIsFree() {
        other.release();
        Skipping skipping = deployment.select(Skipping.class);

        assertThat(skipping.primitiveInt()).isEqualTo(1);
        assertThat(skipping.runs).hasValue(1);
    }
}

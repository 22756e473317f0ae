package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.Lock;
import dev.exclusive.LockBusyException;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A busy {@code @Exclusive} call learns the holder's remaining lease from its own failed attempt: it never lists
 * the store's locks (a SCAN over Redis, a read of every lock file) to compute {@code retryAfter}.
 */
class RetryAfterTest {

    @ApplicationScoped
    static class Work {
        @Exclusive(value = "busy", ttl = 30)
        public String once() {
            return "ran";
        }

        @Exclusive(value = "busy", maxWait = 100, unit = ChronoUnit.MILLIS)
        public String waiting() {
            return "ran";
        }
    }

    Deployment deployment;
    ProbeLockStoreProvider.ProbeStore store;

    @BeforeEach
    void holdTheLockElsewhere() {
        deployment = Deployment.start(
                Map.of("exclusive.store.probe.type", "probe", "exclusive.store.probe.id", "retry-after"), Work.class);
        store = ProbeLockStoreProvider.INSTANCES.get("retry-after");
        Lock other = deployment.select(LockRegistry.class).lock("busy", Duration.ofSeconds(20));
        assertThat(other.get()).isTrue();
        store.lists.set(0);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void oneBusyAttemptGivesRetryAfterWithoutListingTheStore() {
        Work work = deployment.select(Work.class);

        assertBusyForTheHoldersRemainingLeaseWithoutListingTheStore(work::once);
    }

    @Test
    void aWaitThatRunsOutGivesRetryAfterFromItsLastAttemptWithoutListingTheStore() {
        Work work = deployment.select(Work.class);

        assertBusyForTheHoldersRemainingLeaseWithoutListingTheStore(work::waiting);
    }

    /** The other holder took the lock for 20 s just before the call. */
    private void assertBusyForTheHoldersRemainingLeaseWithoutListingTheStore(ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        LockBusyException.class,
                        busy -> assertThat(busy.retryAfter())
                                .hasValueSatisfying(retry ->
                                        assertThat(retry).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20))));
        assertThat(store.lists).as("listings of the store").hasValue(0);
    }
}

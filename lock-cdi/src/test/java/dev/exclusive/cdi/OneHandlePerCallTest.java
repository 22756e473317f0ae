package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * An {@code @Exclusive} call works through one lock handle: the hold it acquires carries the method as purpose, is
 * the one that {@code autoExtend} renews, and is the one released when the method returns.
 */
class OneHandlePerCallTest {

    @Singleton
    static class Recorder {
        final List<Object> events = new CopyOnWriteArrayList<>();

        void acquired(@Observes LockAcquired event) {
            events.add(event);
        }

        void released(@Observes LockReleased event) {
            events.add(event);
        }

        void lost(@Observes LockLost event) {
            events.add(event);
        }
    }

    @ApplicationScoped
    static class Exports {
        @Inject
        LockRegistry registry;

        /** Runs until autoExtend has renewed its lease twice; returns the hold as seen first and last. */
        @Exclusive(value = "export", ttl = 300, unit = ChronoUnit.MILLIS, autoExtend = true)
        public List<LockInfo> export() throws InterruptedException {
            LockInfo first = registry.liveLocks("export", 1).get(0);
            Instant renewedTwice = first.expiresAt().plusMillis(200);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            LockInfo last = first;
            while (last.expiresAt().isBefore(renewedTwice) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                last = registry.liveLocks("export", 1).get(0);
            }
            return List.of(first, last);
        }
    }

    @Test
    void theAcquiredHoldCarriesThePurposeIsRenewedAndIsReleasedByTheSameOwner() throws InterruptedException {
        try (Deployment deployment = Deployment.start(Map.of(), Recorder.class, Exports.class)) {
            List<LockInfo> seen = deployment.select(Exports.class).export();

            LockInfo first = seen.get(0);
            LockInfo last = seen.get(1);
            assertThat(first.holder().purpose()).isEqualTo("Exports#export");
            assertThat(last.expiresAt())
                    .as("renewed")
                    .isAfterOrEqualTo(first.expiresAt().plusMillis(200));
            assertThat(last.owner()).isEqualTo(first.owner());
            assertThat(last.acquiredAt()).as("one hold, extended").isEqualTo(first.acquiredAt());
            assertThat(deployment.select(Recorder.class).events)
                    .containsExactly(
                            new LockAcquired("memory", "export", first.owner(), first.fence()),
                            new LockReleased("memory", "export", first.owner()));
            assertThat(deployment.select(LockRegistry.class).liveLocks("", 10)).isEmpty();
        }
    }
}

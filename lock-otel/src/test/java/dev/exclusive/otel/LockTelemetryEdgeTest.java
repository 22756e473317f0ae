package dev.exclusive.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockInterruptedException;
import dev.exclusive.LockRegistry;
import dev.exclusive.memory.MemoryLockStore;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Edge cases of the lock metrics: what an operator reads must match the locks actually held and waited for. */
class LockTelemetryEdgeTest {

    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(
                    SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    /** get(work) swallows a failed release (logged): the handle is dropped, the lease runs out, nothing is held. */
    @Test
    void heldGoesBackToZeroWhenTheReleaseAfterTheWorkFailedAndTheLeaseRanOut() throws InterruptedException {
        DownStore store = new DownStore(new MemoryLockStore());
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", store)
                .listener(LockTelemetry.of(sdk))
                .build()) {
            assertTrue(registry.lock("reports:daily", Duration.ofMillis(100)).get(() -> {
                store.down = true; // a network blip during the work: the release at the end fails
            }));
            store.down = false;
            Thread.sleep(300);
            assertFalse(registry.lock("reports:daily", 10).isLocked());

            assertThat(LockTelemetryTest.sums(metrics.collectAllMetrics(), LockTelemetry.HELD))
                    .containsOnly(Map.entry(base("reports:*"), 0L));
        }
    }

    /** A handle used again after its lease ran out: two holds, one release, nothing held. */
    @Test
    void heldGoesBackToZeroWhenAHandleReacquiresAfterItsLeaseRanOut() throws InterruptedException {
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .listener(LockTelemetry.of(sdk))
                .build()) {
            Lock lock = registry.lock("sync", Duration.ofMillis(100));
            assertTrue(lock.get());
            Thread.sleep(250);
            assertTrue(lock.get());
            assertTrue(lock.release());
            assertFalse(lock.isLocked());

            assertThat(LockTelemetryTest.sums(metrics.collectAllMetrics(), LockTelemetry.HELD))
                    .containsOnly(Map.entry(base("sync"), 0L));
        }
    }

    /** Every acquisition call ends in one outcome (LockListener's contract); an interrupted wait is one of them. */
    @Test
    void anInterruptedWaitIsRecordedWithItsWait() throws InterruptedException {
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .listener(LockTelemetry.of(sdk))
                .build()) {
            assertTrue(registry.lock("imports:users", 10).get());
            Thread waiter = new Thread(() -> assertThrows(
                    LockInterruptedException.class,
                    () -> registry.lock("imports:users", 10).block(Duration.ofSeconds(30))));
            waiter.start();
            Thread.sleep(200);
            waiter.interrupt();
            waiter.join(5000);

            Map<Attributes, Long> counts =
                    LockTelemetryTest.histogramCounts(metrics.collectAllMetrics(), LockTelemetry.ACQUIRE_DURATION);
            assertThat(counts.values().stream().mapToLong(Long::longValue).sum())
                    .as("acquisition calls recorded in %s: %s", LockTelemetry.ACQUIRE_DURATION, counts)
                    .isEqualTo(2L);
        }
    }

    /**
     * The SDK keeps at most 2,000 attribute sets per instrument by default and merges the rest into one
     * {@code otel.metric.overflow} series: the store and group pairs get series of their own only as far as every
     * outcome of every pair fits in that.
     */
    @Test
    void everyPairsOutcomesFitInTheSdksDefaultCardinality() {
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .listener(LockTelemetry.of(sdk))
                .build()) {
            for (int i = 0; i < 700; i++) {
                Lock held = registry.lock("group-" + i, 10);
                assertTrue(held.get());
                assertFalse(registry.lock("group-" + i, 10).get()); // busy
                assertFalse(registry.lock("group-" + i, 10).block(Duration.ofMillis(1))); // timeout
            }

            assertThat(LockTelemetryTest.histogramCounts(metrics.collectAllMetrics(), LockTelemetry.ACQUIRE_DURATION)
                            .keySet())
                    .noneMatch(attributes -> attributes.get(AttributeKey.booleanKey("otel.metric.overflow")) != null);
        }
    }

    private static Attributes base(String group) {
        return Attributes.of(
                AttributeKey.stringKey(LockTelemetry.STORE),
                "local",
                AttributeKey.stringKey(LockTelemetry.LOCK),
                group);
    }
}

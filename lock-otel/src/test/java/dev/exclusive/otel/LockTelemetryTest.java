package dev.exclusive.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.memory.MemoryLockStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockTelemetryTest {

    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(
                    SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    private LockRegistry registry(MemoryLockStore store) {
        return LockRegistry.builder()
                .store("local", store, "shop:")
                .listener(LockTelemetry.of(sdk))
                .build();
    }

    @Test
    void acquisitionsAreCountedByOutcomeUnderTheGroupNotTheName() {
        try (LockRegistry registry = registry(new MemoryLockStore())) {
            Lock first = registry.lock("purchase:product:1", 10);
            Lock second = registry.lock("purchase:product:2", 10);
            assertTrue(first.get());
            assertTrue(second.get());
            assertFalse(registry.lock("purchase:product:1", 10).get());
            assertFalse(registry.lock("purchase:product:1", 10).block(Duration.ofMillis(20)));
            assertTrue(first.release());
            Lock templated = registry.lock("imports:users:7", 10).group("imports:{source}:{id}");
            assertTrue(templated.get());

            Collection<MetricData> collected = metrics.collectAllMetrics();
            assertThat(histogramCounts(collected, LockTelemetry.ACQUIRE_DURATION))
                    .containsOnly(
                            Map.entry(series("purchase:*", "acquired"), 2L),
                            Map.entry(series("purchase:*", "busy"), 1L),
                            Map.entry(series("purchase:*", "timeout"), 1L),
                            Map.entry(series("imports:{source}:{id}", "acquired"), 1L));
            assertThat(histogramCounts(collected, LockTelemetry.HELD_DURATION))
                    .containsOnly(Map.entry(series("purchase:*", null), 1L));
            assertThat(sums(collected, LockTelemetry.HELD))
                    .containsOnly(
                            Map.entry(series("purchase:*", null), 1L),
                            Map.entry(series("imports:{source}:{id}", null), 1L));
        }
    }

    @Test
    void theTimedOutWaitIsRecordedAsLongAsItWas() {
        try (LockRegistry registry = registry(new MemoryLockStore())) {
            assertTrue(registry.lock("x", 10).get());
            assertFalse(registry.lock("x", 10).block(Duration.ofMillis(50)));
            HistogramPointData point = metrics.collectAllMetrics().stream()
                    .filter(m -> m.getName().equals(LockTelemetry.ACQUIRE_DURATION))
                    .flatMap(m -> m.getHistogramData().getPoints().stream())
                    .filter(p -> "timeout".equals(p.getAttributes().get(AttributeKey.stringKey("outcome"))))
                    .findFirst()
                    .orElseThrow();
            assertThat(point.getSum()).isGreaterThanOrEqualTo(0.05).isLessThan(5.0);
        }
    }

    @Test
    void forceReleasesStoreErrorsAndExpiredHoldsAreCounted() {
        MemoryLockStore real = new MemoryLockStore();
        DownStore store = new DownStore(real);
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", store)
                .listener(LockTelemetry.of(sdk))
                .build()) {
            Lock lock = registry.lock("reports:daily", 10);
            assertTrue(lock.get());
            assertTrue(registry.forceRelease("reports:daily"));
            assertFalse(lock.release()); // the hold ended: no longer counted as held
            store.down = true;
            assertThrows(
                    LockStoreUnavailableException.class,
                    () -> registry.lock("reports:daily", 10).get());

            Collection<MetricData> collected = metrics.collectAllMetrics();
            Attributes base = series("reports:*", null);
            assertThat(sums(collected, LockTelemetry.FORCE_RELEASED)).containsOnly(Map.entry(base, 1L));
            assertThat(sums(collected, LockTelemetry.HELD)).containsOnly(Map.entry(base, 0L));
            assertThat(sums(collected, LockTelemetry.STORE_ERRORS))
                    .containsOnly(Map.entry(
                            base.toBuilder().put("operation", "acquire").build(), 1L));
            assertThat(histogramCounts(collected, LockTelemetry.ACQUIRE_DURATION))
                    .contains(Map.entry(series("reports:*", "error"), 1L));
        }
    }

    @Test
    void lostLeasesAndFailedRenewalsAreCounted() throws InterruptedException {
        DownStore store = new DownStore(new MemoryLockStore());
        CountDownLatch lostHeard = new CountDownLatch(1);
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", store)
                .listener(LockTelemetry.of(sdk))
                .listener(new dev.exclusive.LockListener() {
                    @Override
                    public void lost(Lock lock) {
                        lostHeard.countDown();
                    }
                })
                .build()) {
            Lock lock = registry.lock("sync", Duration.ofMillis(150)).autoExtend();
            assertTrue(lock.get());
            store.down = true;
            assertTrue(lostHeard.await(5, TimeUnit.SECONDS), "the lease was never found lost");

            Collection<MetricData> collected = metrics.collectAllMetrics();
            assertThat(sums(collected, LockTelemetry.LOST)).containsOnly(Map.entry(series("sync", null), 1L));
            assertThat(sums(collected, LockTelemetry.RENEWAL_FAILURES).get(series("sync", null)))
                    .isGreaterThanOrEqualTo(1L);
        }
    }

    @Test
    void pastTheSeriesLimitNewGroupsAreCountedTogether() {
        try (LockRegistry registry = registry(new MemoryLockStore())) {
            for (int i = 0; i < LockTelemetry.MAX_SERIES + 5; i++) {
                Lock lock = registry.lock("job-" + i, 10);
                assertTrue(lock.get());
                lock.release();
            }
            Map<Attributes, Long> acquired =
                    histogramCounts(metrics.collectAllMetrics(), LockTelemetry.ACQUIRE_DURATION);
            assertThat(acquired).hasSize(LockTelemetry.MAX_SERIES + 1);
            assertThat(acquired).containsEntry(series(LockTelemetry.OTHER, "acquired"), 5L);
        }
    }

    @Test
    void theCurrentSpanShowsWhereTheRequestWaitedForTheLock() {
        try (LockRegistry registry = registry(new MemoryLockStore())) {
            Span span = sdk.getTracer("test").spanBuilder("purchase").startSpan();
            try (Scope scope = span.makeCurrent()) {
                Lock lock = registry.lock("purchase:product:1", 10);
                assertTrue(lock.get());
                assertFalse(registry.lock("purchase:product:1", 10).get());
                assertTrue(lock.release());
            } finally {
                span.end();
            }
        }
        List<EventData> events = spans.getFinishedSpanItems().get(0).getEvents();
        assertThat(events)
                .extracting(EventData::getName)
                .containsExactly("exclusive.lock.acquired", "exclusive.lock.busy", "exclusive.lock.released");
        assertThat(events.get(1).getAttributes().asMap())
                .containsEntry(AttributeKey.stringKey("exclusive.lock"), "purchase:*")
                .containsEntry(AttributeKey.stringKey("exclusive.lock.name"), "shop:purchase:product:1")
                .containsEntry(AttributeKey.stringKey("outcome"), "busy");
    }

    @Test
    void aClosedListenerNoLongerReportsTheLocksHeld() {
        LockTelemetry telemetry = LockTelemetry.of(sdk);
        try (LockRegistry registry = LockRegistry.builder().listener(telemetry).build()) {
            assertTrue(registry.lock("x", 10).get());
            assertThat(sums(metrics.collectAllMetrics(), LockTelemetry.HELD)).hasSize(1);
            telemetry.close();
            assertThat(sums(metrics.collectAllMetrics(), LockTelemetry.HELD)).isEmpty();
        }
    }

    @Test
    void withTheNoopOpenTelemetryEveryEventIsANoop() {
        try (LockRegistry registry = LockRegistry.builder()
                .listener(LockTelemetry.of(OpenTelemetry.noop()))
                .build()) {
            Lock lock = registry.lock("x", 10);
            assertTrue(lock.get());
            assertFalse(registry.lock("x", 10).get());
            assertTrue(lock.release());
        }
    }

    @Test
    void onAnOpenTelemetryApiWithoutBucketAdviceTheDurationsAreStillRecorded() {
        OpenTelemetry olderApi = withoutBucketAdvice(sdk, OpenTelemetry.class);
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore(), "shop:")
                .listener(LockTelemetry.of(olderApi))
                .build()) {
            Lock lock = registry.lock("purchase:product:1", 10);
            assertTrue(lock.get());
            assertTrue(lock.release());

            Collection<MetricData> collected = metrics.collectAllMetrics();
            assertThat(histogramCounts(collected, LockTelemetry.ACQUIRE_DURATION))
                    .containsOnly(Map.entry(series("purchase:*", "acquired"), 1L));
            assertThat(histogramCounts(collected, LockTelemetry.HELD_DURATION)).containsValue(1L);
        }
    }

    /**
     * {@code real} as an OpenTelemetry API before 1.32 shows it (Payara 6's): its histogram builders have no
     * {@code setExplicitBucketBoundariesAdvice}, which the JVM reports as a {@link NoSuchMethodError}.
     */
    @SuppressWarnings("unchecked")
    private static <T> T withoutBucketAdvice(Object real, Class<T> type) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getName().equals("setExplicitBucketBoundariesAdvice")) {
                throw new NoSuchMethodError(method.toString());
            }
            Object result;
            try {
                result = method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            Class<?> returned = method.getReturnType();
            boolean onTheWayToAHistogram = returned == MeterProvider.class
                    || returned == Meter.class
                    || returned == MeterBuilder.class
                    || returned == DoubleHistogramBuilder.class;
            return onTheWayToAHistogram ? withoutBucketAdvice(result, returned) : result;
        });
    }

    private static Attributes series(String group, String outcome) {
        Attributes base = Attributes.of(
                AttributeKey.stringKey(LockTelemetry.STORE),
                "local",
                AttributeKey.stringKey(LockTelemetry.LOCK),
                group);
        return outcome == null ? base : base.toBuilder().put("outcome", outcome).build();
    }

    static Map<Attributes, Long> histogramCounts(Collection<MetricData> metrics, String name) {
        return metrics.stream()
                .filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getHistogramData().getPoints().stream())
                .collect(Collectors.toMap(HistogramPointData::getAttributes, HistogramPointData::getCount));
    }

    static Map<Attributes, Long> sums(Collection<MetricData> metrics, String name) {
        return metrics.stream()
                .filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getLongSumData().getPoints().stream())
                .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
    }
}

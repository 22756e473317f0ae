package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.otel.LockTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The container's {@code OpenTelemetry} bean, as MicroProfile Telemetry provides it, gets every lock's metrics. */
class TelemetryTest {

    static final InMemoryMetricReader METRICS = InMemoryMetricReader.create();
    static final OpenTelemetrySdk SDK = OpenTelemetrySdk.builder()
            .setMeterProvider(
                    SdkMeterProvider.builder().registerMetricReader(METRICS).build())
            .build();

    /** What MicroProfile Telemetry does on a server: an application-scoped {@code OpenTelemetry} bean. */
    static class Telemetry {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return SDK;
        }
    }

    @ApplicationScoped
    static class Purchases {
        @Exclusive(value = "purchase:product:{productId}", onBusy = OnBusy.SKIP)
        public boolean purchase(long productId) {
            return true;
        }
    }

    @Test
    void anExclusiveMethodIsCountedUnderItsTemplateByOutcome() {
        try (Deployment deployment = Deployment.start(Map.of(), Telemetry.class, Purchases.class)) {
            Purchases purchases = deployment.select(Purchases.class);
            LockRegistry registry = deployment.select(LockRegistry.class);
            Lock held = registry.lock("purchase:product:1", Duration.ofSeconds(10));
            held.get();

            assertThat(purchases.purchase(1)).isFalse();
            assertThat(purchases.purchase(2)).isTrue();
            assertThat(purchases.purchase(3)).isTrue();
            held.release();

            Map<Attributes, Long> counts = METRICS.collectAllMetrics().stream()
                    .filter(m -> m.getName().equals(LockTelemetry.ACQUIRE_DURATION))
                    .flatMap(m -> m.getHistogramData().getPoints().stream())
                    .collect(Collectors.toMap(HistogramPointData::getAttributes, HistogramPointData::getCount));
            assertThat(counts)
                    .containsOnly(
                            Map.entry(series("purchase:product:{productId}", "acquired"), 2L),
                            Map.entry(series("purchase:product:{productId}", "busy"), 1L),
                            Map.entry(series("purchase:*", "acquired"), 1L));
        }
    }

    static final InMemoryMetricReader OWN_METRICS = InMemoryMetricReader.create();

    /** A telemetry of its own, so that the other tests' series stay apart. */
    static class OwnTelemetry {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setMeterProvider(SdkMeterProvider.builder()
                            .registerMetricReader(OWN_METRICS)
                            .build())
                    .build();
        }
    }

    @ApplicationScoped
    static class Reports {
        /** A network blip during the work: the release at the end cannot reach the store. */
        @Exclusive(value = "reports:daily", store = "p")
        public void rebuild() {
            ProbeLockStoreProvider.INSTANCES.get("telemetry-blip").down = true;
        }
    }

    @Test
    void aMethodWhoseReleaseFailedIsNotCountedAsHeldAfterItReturns() {
        try (Deployment deployment = Deployment.start(
                Map.of("exclusive.store.p.type", "probe", "exclusive.store.p.id", "telemetry-blip"),
                OwnTelemetry.class,
                Reports.class)) {
            deployment.select(Reports.class).rebuild(); // the failed release is logged, not thrown
            ProbeLockStoreProvider.INSTANCES.get("telemetry-blip").down = false;

            Map<Attributes, Long> held = OWN_METRICS.collectAllMetrics().stream()
                    .filter(m -> m.getName().equals(LockTelemetry.HELD))
                    .flatMap(m -> m.getLongSumData().getPoints().stream())
                    .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
            assertThat(held)
                    .containsEntry(
                            Attributes.of(
                                    AttributeKey.stringKey(LockTelemetry.STORE),
                                    "p",
                                    AttributeKey.stringKey(LockTelemetry.LOCK),
                                    "reports:daily"),
                            0L);
        }
    }

    /** An {@code OpenTelemetry} whose metrics cannot be detached: closing an observable instrument throws. */
    static class BrokenTelemetry {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return failingClose(OpenTelemetry.class, SDK);
        }

        /** Wraps every interface the SDK hands out, so that the close of an instrument it built throws. */
        @SuppressWarnings("unchecked")
        static <T> T failingClose(Class<T> type, T target) {
            return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
                if (method.getName().equals("close") && AutoCloseable.class.isAssignableFrom(type)) {
                    throw new IllegalStateException("the SDK refused to close " + type.getSimpleName());
                }
                Object result;
                try {
                    result = method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                Class<Object> returned = (Class<Object>) method.getReturnType();
                return returned.isInterface() && result != null ? failingClose(returned, result) : result;
            });
        }
    }

    @Test
    void storesAreClosedAtShutdownEvenWhenTheMetricsCannotBeDetached() {
        Deployment deployment = Deployment.start(
                Map.of("exclusive.store.p.type", "probe", "exclusive.store.p.id", "telemetry-closing"),
                BrokenTelemetry.class);
        ProbeLockStoreProvider.ProbeStore store = ProbeLockStoreProvider.INSTANCES.get("telemetry-closing");

        try (LogRecorder log = new LogRecorder()) {
            deployment.close();

            assertThat(store.closed).as("the store closed at shutdown").isTrue();
            assertThat(log.printed())
                    .contains("WARNING Exclusive's lock metrics could not be detached at shutdown")
                    .contains("the SDK refused to close");
        }
    }

    private static Attributes series(String group, String outcome) {
        return Attributes.of(
                AttributeKey.stringKey(LockTelemetry.STORE),
                "memory",
                AttributeKey.stringKey(LockTelemetry.LOCK),
                group,
                AttributeKey.stringKey(LockTelemetry.OUTCOME),
                outcome);
    }
}

package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A telemetry failure must never break locking: not even the application's start. */
class TelemetryFailureTest {

    /** A server's OpenTelemetry bean that cannot be created (e.g. an SDK autoconfiguration error). */
    static class UnusableTelemetry {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            throw new IllegalStateException("otel.exporter.otlp.endpoint: invalid URL");
        }
    }

    @Test
    void anOpenTelemetryBeanThatFailsLeavesTheApplicationRunningWithoutMetrics() {
        Deployment deployment;
        try (LogRecorder log = new LogRecorder()) {
            try {
                deployment = Deployment.start(Map.of(), UnusableTelemetry.class);
            } catch (RuntimeException startFailed) {
                throw new AssertionError("the application did not start: " + startFailed, startFailed);
            }
            assertThat(log.printed())
                    .contains("WARNING Exclusive records no lock metrics: the OpenTelemetry bean could not be used")
                    .contains("otel.exporter.otlp.endpoint: invalid URL");
        }
        try (deployment) {
            LockRegistry registry = deployment.select(LockRegistry.class);
            assertThat(registry.lock("x", 10).get()).isTrue();
        }
    }
}

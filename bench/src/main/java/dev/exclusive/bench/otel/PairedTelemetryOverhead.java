package dev.exclusive.bench.otel;

import dev.exclusive.LockRegistry;
import dev.exclusive.bench.core.PairedListenerOverhead;
import dev.exclusive.memory.MemoryLockStore;
import dev.exclusive.otel.LockTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

/**
 * {@link TelemetryOverheadBenchmark}'s comparison, paired for a shared, loaded machine ({@link PairedListenerOverhead}):
 * acquire+release on the memory store without metrics against the same with {@code LockTelemetry} recording into
 * the SDK.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.otel.PairedTelemetryOverhead [rounds]}
 */
public final class PairedTelemetryOverhead {

    private PairedTelemetryOverhead() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                        .setMeterProvider(SdkMeterProvider.builder()
                                .registerMetricReader(InMemoryMetricReader.create())
                                .build())
                        .build();
                LockRegistry plain = LockRegistry.builder()
                        .store("memory", new MemoryLockStore())
                        .build();
                LockRegistry metrics = LockRegistry.builder()
                        .store("memory", new MemoryLockStore())
                        .listener(LockTelemetry.of(sdk))
                        .build()) {
            PairedListenerOverhead.compare(rounds, plain, metrics);
        }
    }
}

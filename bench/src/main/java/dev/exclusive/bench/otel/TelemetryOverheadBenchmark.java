package dev.exclusive.bench.otel;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.memory.MemoryLockStore;
import dev.exclusive.otel.LockTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One thread acquiring and releasing one lock on the memory store, uncontended: {@code plain*} on a registry with
 * no listener (the floor: the same call without metrics), {@code metrics*} on one whose only listener is
 * {@link LockTelemetry} over the OpenTelemetry SDK with a metric reader registered, so every instrument records
 * (the reader is collected never during the run: export is off the lock's path). Overhead per acquire+release =
 * metrics − plain, for a reused handle ({@code *Handle}), a new handle per call given a fixed group, as
 * {@code @Exclusive} makes with its template ({@code *Template}), and a new handle per call whose group is derived
 * from its name ({@code *NewHandle}).
 *
 * <pre>java -jar bench/target/benchmarks.jar TelemetryOverheadBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TelemetryOverheadBenchmark {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String NAME = "bench:product:42";
    private static final String TEMPLATE = "bench:product:{id}";

    private OpenTelemetrySdk sdk;
    private LockRegistry plain;
    private LockRegistry metrics;
    private Lock plainLock;
    private Lock metricsLock;

    @Setup(Level.Trial)
    public void setUp() {
        sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder()
                        .registerMetricReader(InMemoryMetricReader.create())
                        .build())
                .build();
        plain = LockRegistry.builder().store("memory", new MemoryLockStore()).build();
        metrics = LockRegistry.builder()
                .store("memory", new MemoryLockStore())
                .listener(LockTelemetry.of(sdk))
                .build();
        plainLock = plain.lock(NAME, TTL);
        metricsLock = metrics.lock(NAME, TTL);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        plain.close();
        metrics.close();
        sdk.close();
    }

    private static boolean acquireRelease(Lock lock) {
        if (!lock.get()) {
            throw new IllegalStateException("held");
        }
        return lock.release();
    }

    @Benchmark
    public boolean plainHandle() {
        return acquireRelease(plainLock);
    }

    @Benchmark
    public boolean metricsHandle() {
        return acquireRelease(metricsLock);
    }

    @Benchmark
    public boolean plainNewHandle() {
        return acquireRelease(plain.lock(NAME, TTL));
    }

    @Benchmark
    public boolean metricsNewHandle() {
        return acquireRelease(metrics.lock(NAME, TTL));
    }

    @Benchmark
    public boolean plainTemplate() {
        return acquireRelease(plain.lock(NAME, TTL).group(TEMPLATE));
    }

    @Benchmark
    public boolean metricsTemplate() {
        return acquireRelease(metrics.lock(NAME, TTL).group(TEMPLATE));
    }
}

package dev.exclusive.bench.cdi;

import dev.exclusive.LockRegistry;
import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.internal.ExclusiveExtension;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
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
 * One uncontended call: acquire, run a trivial body, release, on the memory store. {@code annotated*} goes through
 * a Weld SE client proxy and the {@code @Exclusive} interceptor; {@code programmatic*} does what the interceptor
 * does (a handle with a purpose, one attempt, release) by hand; {@code plainCall} is the proxy without a lock.
 * Overhead per call = annotated − programmatic.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExclusiveOverheadBenchmark {

    private static final Duration TTL = Duration.ofSeconds(30);

    /** The bean under the interceptor. */
    @ApplicationScoped
    public static class Work {

        @Exclusive(value = "bench", ttl = 30)
        public long fixedName(long value) {
            return value + 1;
        }

        @Exclusive(value = "bench:{id}", ttl = 30)
        public long templatedName(long id) {
            return id + 1;
        }

        public long unlocked(long value) {
            return value + 1;
        }
    }

    private SmallRyeConfig config;
    private WeldContainer container;
    private Work work;
    private LockRegistry registry;
    private long counter;

    @Setup(Level.Trial)
    public void start() {
        config = new SmallRyeConfigBuilder().build();
        ConfigProviderResolver.instance()
                .registerConfig(config, Thread.currentThread().getContextClassLoader());
        container = new Weld("exclusive-bench")
                .disableDiscovery()
                .addBeanClass(Work.class)
                .addExtension(new ExclusiveExtension())
                .initialize();
        work = container.select(Work.class).get();
        registry = container.select(LockRegistry.class).get();
    }

    @TearDown(Level.Trial)
    public void stop() {
        container.shutdown();
        ConfigProviderResolver.instance().releaseConfig(config);
    }

    @Benchmark
    public long annotatedFixedName() {
        return work.fixedName(counter++);
    }

    @Benchmark
    public long programmaticFixedName() {
        long value = counter++;
        return registry.lock("bench", TTL)
                .purpose("Work#fixedName")
                .get(() -> value + 1)
                .value();
    }

    @Benchmark
    public long annotatedTemplatedName() {
        return work.templatedName(counter++ & 1023);
    }

    @Benchmark
    public long programmaticTemplatedName() {
        long id = counter++ & 1023;
        return registry.lock("bench:" + id, TTL)
                .purpose("Work#templatedName")
                .get(() -> id + 1)
                .value();
    }

    @Benchmark
    public long plainCall() {
        return work.unlocked(counter++);
    }
}

package dev.exclusive.bench.admin;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.LockColumn;
import dev.exclusive.admin.LockConsoleService;
import dev.exclusive.admin.LockFilter;
import dev.exclusive.admin.LockSort;
import dev.exclusive.admin.internal.ConsoleCaller;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.redis.RedisLockStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The console's first page when the Redis store holds 10,000 live locks: the server-side time from a refresh to
 * the rows the browser receives (target: at most 1 s).
 *
 * <p>{@code storeListing} is the reference: the one {@code liveLocks(prefix, 10_000)} call the console is built on
 * (a SCAN of the key space and a read of each lock). {@code firstPageByName} is what the console does on each
 * refresh with the default order: that listing, then sorting and cutting the first 50 rows in memory;
 * {@code firstPageByRemaining} sorts by another column. The ratio to {@code storeListing} is the console's own
 * cost.
 *
 * <pre>java -jar bench/target/benchmarks.jar ConsoleFirstPageBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ConsoleFirstPageBenchmark {

    static final String URL = System.getProperty("redis.url", "redis://127.0.0.1:6379");

    @Param("10000")
    public int locks;

    private LockRegistry registry;
    private LockConsoleService console;

    @Setup(Level.Trial)
    public void hold() {
        String prefix = "bench-console-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        registry = LockRegistry.builder()
                .store("redis", RedisLockStore.create(URI.create(URL)), prefix)
                .instanceName("bench")
                .build();
        for (int i = 0; i < locks; i++) {
            if (!registry.lock(String.format("job:%05d", i), Duration.ofMinutes(10))
                    .purpose("Bench#hold")
                    .get()) {
                throw new IllegalStateException("could not take lock " + i);
            }
        }
        ConsoleSettings defaults = ConsoleSettings.DEFAULTS;
        console = new LockConsoleService(
                registry,
                new LockStatistics(),
                new ConsoleSettings(defaults.route(), defaults.role(), defaults.refresh(), locks),
                ConsoleCaller.nobody());
        int listed = console.read(LockFilter.all()).size();
        if (listed != locks) {
            throw new IllegalStateException("expected " + locks + " live locks, the console read " + listed);
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        for (LockInfo lock : registry.liveLocks("", locks)) {
            registry.forceRelease(lock);
        }
        registry.close();
    }

    @Benchmark
    public List<LockInfo> storeListing() {
        return registry.liveLocks("", locks);
    }

    @Benchmark
    public List<LockInfo> firstPageByName() {
        return console.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 50);
    }

    @Benchmark
    public List<LockInfo> firstPageByRemaining() {
        return console.read(LockFilter.all()).page(List.of(LockSort.descending(LockColumn.REMAINING)), 0, 50);
    }
}

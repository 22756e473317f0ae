package dev.exclusive.bench.stats;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.memory.MemoryLockStore;
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
 * What {@link LockStatistics} costs. {@code event*}: one event handed straight to the listener, as a handle hands it
 * (an acquisition with its wait: a per-second counter, a histogram bucket, the group's minute slot; a busy answer:
 * two counters), on the system clock. {@code plain*} and {@code statistics*}: one thread acquiring and releasing one
 * lock on the memory store, uncontended, on a registry with no listener and on one whose only listener is
 * {@link LockStatistics}; overhead per acquire+release = statistics − plain, for a reused handle ({@code *Handle})
 * and a new handle per call given a fixed group, as {@code @Exclusive} makes with its template ({@code *Template}).
 *
 * <pre>java -jar bench/target/benchmarks.jar StatisticsOverheadBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StatisticsOverheadBenchmark {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String NAME = "bench:product:42";
    private static final String TEMPLATE = "bench:product:{id}";
    private static final Duration WAITED = Duration.ofNanos(1_700);

    private LockStatistics statistics;
    private LockRegistry plain;
    private LockRegistry counted;
    private Lock plainLock;
    private Lock countedLock;
    /** A handle of a registry without the statistics, for the events handed to them directly. */
    private Lock eventLock;

    @Setup(Level.Trial)
    public void setUp() {
        statistics = new LockStatistics();
        plain = LockRegistry.builder().store("memory", new MemoryLockStore()).build();
        counted = LockRegistry.builder()
                .store("memory", new MemoryLockStore())
                .listener(statistics)
                .build();
        plainLock = plain.lock(NAME, TTL);
        countedLock = counted.lock(NAME, TTL);
        eventLock = plain.lock(NAME, TTL).group(TEMPLATE);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        plain.close();
        counted.close();
    }

    private static boolean acquireRelease(Lock lock) {
        if (!lock.get()) {
            throw new IllegalStateException("held");
        }
        return lock.release();
    }

    @Benchmark
    public void eventAcquired() {
        statistics.acquired(eventLock, WAITED);
    }

    @Benchmark
    public void eventBusy() {
        statistics.busy(eventLock, WAITED);
    }

    @Benchmark
    public boolean plainHandle() {
        return acquireRelease(plainLock);
    }

    @Benchmark
    public boolean statisticsHandle() {
        return acquireRelease(countedLock);
    }

    @Benchmark
    public boolean plainTemplate() {
        return acquireRelease(plain.lock(NAME, TTL).group(TEMPLATE));
    }

    @Benchmark
    public boolean statisticsTemplate() {
        return acquireRelease(counted.lock(NAME, TTL).group(TEMPLATE));
    }
}

package dev.exclusive.bench.core;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
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
 * One thread acquiring and releasing one lock, uncontended: the cost of the lock itself.
 *
 * <p>{@code floor} is the least any in-JVM lock can do ({@code putIfAbsent} then {@code remove} on a
 * {@link ConcurrentHashMap}); the memory store's target is at least half its throughput. The file store is
 * measured on the same run for the record: it pays two system calls per open, lock, read, write and close.
 *
 * <pre>java -jar bench/target/benchmarks.jar AcquireReleaseBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AcquireReleaseBenchmark {

    private static final Duration TTL = Duration.ofSeconds(30);

    private final ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();
    private LockRegistry memory;
    private LockRegistry files;
    private Path folder;
    private Lock memoryLock;
    private Lock fileLock;
    private MemoryLockStore memoryStore;
    private final LockHolder holder = new LockHolder("bench", "main", "");

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        folder = Files.createTempDirectory("exclusive-bench");
        memoryStore = new MemoryLockStore();
        memory = LockRegistry.builder().store("memory", memoryStore).build();
        files = LockRegistry.builder().store("files", new FileLockStore(folder)).build();
        memoryLock = memory.lock("bench:acquire-release", Duration.ofSeconds(30));
        fileLock = files.lock("bench:acquire-release", Duration.ofSeconds(30));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        memory.close();
        files.close();
        try (var paths = Files.walk(folder)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    @Benchmark
    public boolean floor() {
        if (map.putIfAbsent("bench:acquire-release", "owner") != null) {
            throw new IllegalStateException("held");
        }
        return map.remove("bench:acquire-release", "owner");
    }

    @Benchmark
    public boolean memoryStore() {
        if (!memoryLock.get()) {
            throw new IllegalStateException("held");
        }
        return memoryLock.release();
    }

    /** The store alone, through the SPI: what the core adds is the difference to {@link #memoryStore()}. */
    @Benchmark
    public boolean memoryStoreSpiOnly() {
        if (!memoryStore.tryAcquire("bench:spi", "owner", holder, TTL).acquired()) {
            throw new IllegalStateException("held");
        }
        return memoryStore.release("bench:spi", "owner");
    }

    @Benchmark
    public boolean memoryStoreNewHandleEachTime() {
        Lock lock = memory.lock("bench:acquire-release", Duration.ofSeconds(30));
        if (!lock.get()) {
            throw new IllegalStateException("held");
        }
        return lock.release();
    }

    @Benchmark
    public boolean fileStore() {
        if (!fileLock.get()) {
            throw new IllegalStateException("held");
        }
        return fileLock.release();
    }
}

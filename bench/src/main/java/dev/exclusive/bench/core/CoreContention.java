package dev.exclusive.bench.core;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;

/**
 * 8 threads on one lock with a 200 µs critical section: the memory and file stores against
 * {@link ReentrantLock} in the same run. Targets: the memory store's handoff p99 at most 2× ReentrantLock's.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.core.CoreContention [seconds] [threads]</pre>
 */
public final class CoreContention {

    private CoreContention() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        long work = 200;

        ReentrantLock reentrant = new ReentrantLock();
        Handoff.Result reference = Handoff.run(
                "ReentrantLock",
                new Handoff.Subject() {
                    @Override
                    public void acquire() {
                        reentrant.lock();
                    }

                    @Override
                    public void release() {
                        reentrant.unlock();
                    }
                },
                threads,
                work,
                seconds);
        System.out.println(reference);

        try (LockRegistry memory =
                LockRegistry.builder().store("memory", new MemoryLockStore()).build()) {
            report(Handoff.run("memory store", subject(memory), threads, work, seconds), reference);
        }
        Path folder = Files.createTempDirectory("exclusive-bench");
        try (LockRegistry files =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            report(Handoff.run("file store", subject(files), threads, work, seconds), reference);
        }
    }

    /** A subject that takes a new handle per acquisition, as application code does. */
    public static Handoff.Subject subject(LockRegistry registry) {
        return new Handoff.Subject() {
            private final ThreadLocal<Lock> held = new ThreadLocal<>();

            @Override
            public void acquire() {
                Lock lock = registry.lock("bench:contended", Duration.ofSeconds(30));
                if (!lock.block(Duration.ofSeconds(30))) {
                    throw new IllegalStateException("waited 30 s");
                }
                held.set(lock);
            }

            @Override
            public void release() {
                if (!held.get().release()) {
                    throw new IllegalStateException("lost the lock");
                }
            }
        };
    }

    public static void report(Handoff.Result result, Handoff.Result reference) {
        System.out.println(result);
        ratios(result, reference);
    }

    /** Prints {@code result}'s figures as ratios against {@code reference}'s, on one line. */
    public static void ratios(Handoff.Result result, Handoff.Result reference) {
        System.out.printf(
                Locale.ROOT,
                "%-28s throughput %.2f×, handoff p50 %.2f×, p99 %.2f× %s%n",
                "",
                result.perSecond() / reference.perSecond(),
                result.p50Micros() / reference.p50Micros(),
                result.p99Micros() / reference.p99Micros(),
                reference.name());
    }
}

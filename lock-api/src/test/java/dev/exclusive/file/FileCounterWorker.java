package dev.exclusive.file;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM for the multi-process tests: {@code count <folder> <counter file> <rounds>} increments a
 * counter file non-atomically under the lock; {@code hold <folder> <name> <ttl ms>} acquires and then hangs,
 * waiting to be killed; {@code hold-os-lock <folder> <name>} takes the OS lock of the name's file and hangs;
 * {@code stress <folder> <checks folder> <threads> <names> <millis> [clean]} runs threads that lock random names
 * (and, with {@code clean}, one that removes every file idle for a millisecond) and reports
 * {@code calls=... failures=... overlaps=... fenceRegressions=... removed=...} on its last line;
 * {@code audit <folder> <actor> <count>} force-releases {@code count} free locks as {@code actor}, each one
 * appending to the audit trail.
 */
public final class FileCounterWorker {

    private FileCounterWorker() {}

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args[1]);
        if (args[0].equals("stress")) {
            boolean clean = args.length > 6 && args[6].equals("clean");
            FileLockStore store = clean
                    ? new FileLockStore(
                            folder, "files", false, Clock.systemUTC(), Duration.ofMillis(1), Duration.ofSeconds(5))
                    : new FileLockStore(folder);
            stress(
                    store,
                    Path.of(args[2]),
                    Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]),
                    Long.parseLong(args[5]),
                    clean);
            return;
        }
        if (args[0].equals("hold-os-lock")) {
            RandomAccessFile file = new RandomAccessFile(
                    new FileLockStore(folder).fileOf(args[2]).toFile(), "rw");
            file.getChannel().lock();
            System.out.println("locked");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            if (args[0].equals("audit")) {
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    registry.forceRelease("audited-" + i, args[2]);
                }
                return;
            }
            if (args[0].equals("hold")) {
                Lock lock = registry.lock(args[2], Duration.ofMillis(Long.parseLong(args[3])));
                if (!lock.block(Duration.ofSeconds(30))) {
                    System.exit(2);
                }
                System.out.println("acquired " + lock.fence().getAsLong());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            Path counter = Path.of(args[2]);
            int rounds = Integer.parseInt(args[3]);
            for (int i = 0; i < rounds; i++) {
                boolean ran = registry.lock("counter", Duration.ofSeconds(30)).block(Duration.ofSeconds(60), () -> {
                    int value = Integer.parseInt(
                            Files.readString(counter, StandardCharsets.UTF_8).strip());
                    Thread.onSpinWait();
                    Files.writeString(counter, Integer.toString(value + 1), StandardCharsets.UTF_8);
                });
                if (!ran) {
                    System.exit(3);
                }
            }
        }
    }

    /**
     * Threads that, until {@code millis} pass, pick a random name of {@code names} and try it once or wait a
     * little, inspect it, list the folder, and, when they hold it, check in {@code checks} that nobody else does
     * (an exclusive create of a marker file) and that its fence is greater than any fence seen for it before.
     */
    private static void stress(FileLockStore store, Path checks, int threads, int names, long millis, boolean clean)
            throws Exception {
        AtomicLong calls = new AtomicLong();
        AtomicLong removed = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong overlaps = new AtomicLong();
        AtomicLong fenceRegressions = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        long deadline = System.nanoTime() + Duration.ofMillis(millis).toNanos();
        try (LockRegistry registry =
                LockRegistry.builder().store("files", store).build()) {
            List<Thread> workers = new ArrayList<>();
            if (clean) {
                Thread cleaner = new Thread(() -> {
                    while (System.nanoTime() - deadline < 0) {
                        try {
                            removed.addAndGet(store.cleanUp());
                            LockSupport.parkNanos(
                                    TimeUnit.MILLISECONDS.toNanos(1)); // paces it: leave the CPUs to the lockers
                        } catch (Throwable e) {
                            failures.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                        }
                    }
                });
                cleaner.start();
                workers.add(cleaner);
            }
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() - deadline < 0) {
                        String name = "stress-" + random.nextInt(names);
                        try {
                            Lock lock = registry.lock(name, Duration.ofSeconds(30));
                            calls.addAndGet(2);
                            boolean held = random.nextBoolean() ? lock.get() : lock.block(Duration.ofMillis(20));
                            if (random.nextInt(8) == 0) {
                                calls.incrementAndGet();
                                registry.liveLocks("stress-", 100);
                            }
                            if (!held) {
                                calls.incrementAndGet();
                                lock.isLocked();
                                continue;
                            }
                            check(checks, name, lock.fence().getAsLong(), overlaps, fenceRegressions);
                            calls.incrementAndGet();
                            if (!lock.release()) {
                                throw new IllegalStateException("lost '" + name + "' before releasing it");
                            }
                        } catch (Throwable e) {
                            failures.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        if (firstFailure.get() != null) {
            firstFailure.get().printStackTrace();
        }
        System.out.println("calls=" + calls + " failures=" + failures + " overlaps=" + overlaps + " fenceRegressions="
                + fenceRegressions + " removed=" + removed);
    }

    /** Runs while holding {@code name}: counts an overlap if another holder's marker exists, and a fence regression. */
    private static void check(Path checks, String name, long fence, AtomicLong overlaps, AtomicLong fenceRegressions)
            throws IOException {
        Path marker = checks.resolve(name + ".held");
        try {
            Files.createFile(marker);
        } catch (FileAlreadyExistsException e) {
            overlaps.incrementAndGet();
            return;
        }
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100)); // a holder that works a little
        Path last = checks.resolve(name + ".fence");
        long previous =
                Files.exists(last) ? Long.parseLong(Files.readString(last).strip()) : 0;
        if (fence <= previous) {
            fenceRegressions.incrementAndGet();
        }
        Files.writeString(last, Long.toString(Math.max(fence, previous)));
        Files.delete(marker);
    }
}

package dev.exclusive.bench.core;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.file.FileLockStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The file store under load from several processes, each with several threads, on several names: every thread
 * picks a random name, tries it once and releases it when it got it; one call in 16 lists the folder (shared OS
 * locks). Prints attempts and acquisitions per second over all processes, and the calls that failed (they must
 * be 0). There is no reference implementation: compare two builds of the store on the same machine.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.core.FileStoreLoad [seconds] [processes] [threads] [names]</pre>
 */
public final class FileStoreLoad {

    private FileStoreLoad() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Path.of(args[1]), Double.parseDouble(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            return;
        }
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int processes = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int names = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        Path folder = Files.createTempDirectory("exclusive-file-load");
        List<Process> children = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            children.add(new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            FileStoreLoad.class.getName(),
                            "child",
                            folder.toString(),
                            Double.toString(seconds),
                            Integer.toString(threads),
                            Integer.toString(names))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start());
        }
        long attempts = 0;
        long acquired = 0;
        long failures = 0;
        for (Process child : children) {
            String[] counts = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .strip()
                    .split(" ");
            if (child.waitFor() != 0 || counts.length != 3) {
                throw new IllegalStateException("a child failed: " + String.join(" ", counts));
            }
            attempts += Long.parseLong(counts[0]);
            acquired += Long.parseLong(counts[1]);
            failures += Long.parseLong(counts[2]);
        }
        System.out.printf(
                Locale.ROOT,
                "file store, %d processes x %d threads on %d names, %.0f s: %,.0f attempts/s, %,.0f acquisitions/s,"
                        + " %d failed calls%n",
                processes,
                threads,
                names,
                seconds,
                attempts / seconds,
                acquired / seconds,
                failures);
        deleteQuietly(folder);
    }

    private static void child(Path folder, double seconds, int threads, int names) throws Exception {
        AtomicLong attempts = new AtomicLong();
        AtomicLong acquired = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        long end = System.nanoTime() + (long) (seconds * TimeUnit.SECONDS.toNanos(1));
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() - end < 0) {
                        try {
                            if (random.nextInt(16) == 0) {
                                registry.liveLocks("load:", 100);
                                continue;
                            }
                            Lock lock = registry.lock("load:" + random.nextInt(names), Duration.ofSeconds(30));
                            attempts.incrementAndGet();
                            if (lock.get()) {
                                acquired.incrementAndGet();
                                lock.release();
                            }
                        } catch (RuntimeException e) {
                            failures.incrementAndGet();
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
        System.out.println(attempts + " " + acquired + " " + failures);
    }

    private static void deleteQuietly(Path folder) throws IOException {
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

package dev.exclusive.bench.jpa;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.persistence.EntityManagerFactory;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Two JVMs with four threads each contend for one lock on PostgreSQL, each holder working 200 µs under the lock and
 * then 2 ms outside it (so that a releasing thread does not simply take the lock back, and handoffs go to threads
 * that waited): first through
 * the reference, a poller that tries the lock (the jpa store's {@code get()}) every 50 ms; then through the jpa
 * store's {@code block()}, whose waiters are woken by the releases' notifications. This JVM launches the second
 * one itself; both log every hold (acquired, released, wall clock in µs on the one host), and the holds merged in
 * time order give the handoffs: the next acquisition minus the previous release, and whether it crossed JVMs.
 * Prints, per variant, acquisitions per second, handoff p50 and p99 and the share of handoffs across JVMs, and the
 * store's throughput against the poller's. Targets: at least 3x the poller, handoff p99 at most 5 ms.
 *
 * <p>Between the two, the ceilings: one thread in this JVM holds the lock again and again, 200 µs each, with nobody
 * waiting, so no handoff costs anything. The contenders' holds come one after another too, each with its statements,
 * so each ceiling bounds every lock that does at least those statements per hold, whatever its wake-up (but for the
 * part of a round trip that a statement already queued on the row saves): the
 * floor of {@link RawJdbcLocks} (a durable upsert, a durable delete), the same with the release unflushed (as the
 * store's), and one durable handover per hold ({@link RawJdbcLocks#handOver}: the row moved to the next owner with a
 * new fence, what a lock does that records every grant durably, its release folded into the next grant). Each prints against the poller.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.jpa.TwoJvmHandoff [seconds]}
 */
public final class TwoJvmHandoff {

    private static final int THREADS = 4;
    private static final long WORK_NANOS = 200_000;
    private static final long THINK_NANOS = 2_000_000;
    private static final long POLL_MILLIS = 50;
    private static final long TTL_MILLIS = 30_000;

    private TwoJvmHandoff() {}

    /** One hold: when it was acquired and released, in µs since the epoch, and by which JVM. */
    record Hold(long acquired, long released, int jvm) {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            Path log = Path.of(args[3]);
            List<Hold> holds = contend(args[1], args[2], 1, () -> {
                Files.createFile(Path.of(args[3] + ".ready"));
                return readSchedule(Path.of(args[3] + ".go"));
            });
            try (BufferedWriter out = Files.newBufferedWriter(log)) {
                for (Hold hold : holds) {
                    out.write(hold.acquired() + " " + hold.released() + "\n");
                }
            }
            return;
        }
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        double poller = run("poller", seconds);
        try (RawJdbcLocks floor = new RawJdbcLocks(BenchDatabase.POSTGRESQL);
                RawJdbcLocks unflushed = RawJdbcLocks.unflushedRelease(BenchDatabase.POSTGRESQL);
                RawJdbcLocks fenced = RawJdbcLocks.fenced(BenchDatabase.POSTGRESQL)) {
            String name = "two-jvm-ceiling:" + UUID.randomUUID();
            ceiling("floor (durable acquire, durable release)", seconds, poller, hold -> {
                String owner = Integer.toString(hold);
                return floor.acquire(name, owner, TTL_MILLIS) && work() && floor.release(name, owner);
            });
            ceiling("floor, release unflushed (the store's trade)", seconds, poller, hold -> {
                String owner = Integer.toString(hold);
                return unflushed.acquire(name, owner, TTL_MILLIS) && work() && unflushed.release(name, owner);
            });
            if (!fenced.acquire(name, "0", TTL_MILLIS)) {
                throw new IllegalStateException("the handover's first acquisition failed");
            }
            ceiling(
                    "one durable handover per hold",
                    seconds,
                    poller,
                    hold -> work()
                            && fenced.handOver(name, Integer.toString(hold), Integer.toString(hold + 1), TTL_MILLIS));
        }
        double store = run("store", seconds);
        System.out.printf("store / 50 ms poller, acquisitions per second: %.2f%n", store / poller);
    }

    /** One hold of a ceiling: its statements and its work, in series; false if a statement took nothing. */
    @FunctionalInterface
    interface Cycle {
        boolean run(int hold) throws SQLException;
    }

    /** Runs {@code cycle} back to back in this thread for {@code seconds} and prints its holds per second. */
    private static void ceiling(String label, int seconds, double poller, Cycle cycle) throws SQLException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int holds = 0;
        while (System.nanoTime() < end) {
            if (!cycle.run(holds++)) {
                throw new IllegalStateException("uncontended " + label + " failed");
            }
        }
        double rate = holds / (double) seconds;
        System.out.printf(
                "ceiling, 1 thread, nobody waiting: %s: %,.0f holds/s, %.2fx the poller%n", label, rate, rate / poller);
    }

    /** The holder's {@value #WORK_NANOS} ns of work under the lock, spun. */
    private static boolean work() {
        long until = System.nanoTime() + WORK_NANOS;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        return true;
    }

    /** @return acquisitions per second of {@code mode} across both JVMs */
    private static double run(String mode, int seconds) throws Exception {
        String name = "two-jvm:" + UUID.randomUUID();
        Path log = Files.createTempFile("two-jvm-handoff", ".log");
        Path ready = Path.of(log + ".ready");
        Path go = Path.of(log + ".go");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        TwoJvmHandoff.class.getName(),
                        "--child",
                        mode,
                        name,
                        log.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        // both JVMs set up their store first; then both start one second later, together
        List<Hold> holds = new ArrayList<>(contend(mode, name, 0, () -> {
            awaitFile(ready);
            long startAt = System.currentTimeMillis() + 1_000;
            Path written = Files.writeString(Path.of(go + ".tmp"), startAt + " " + (startAt + seconds * 1_000L));
            Files.move(written, go);
            return new long[] {startAt, startAt + seconds * 1_000L};
        }));
        if (child.waitFor() != 0) {
            throw new IllegalStateException("the second JVM failed: exit " + child.exitValue());
        }
        for (String line : Files.readAllLines(log)) {
            String[] times = line.split(" ");
            holds.add(new Hold(Long.parseLong(times[0]), Long.parseLong(times[1]), 1));
        }
        Files.delete(log);
        Files.delete(ready);
        Files.delete(go);
        holds.sort((a, b) -> Long.compare(a.acquired(), b.acquired()));
        List<Long> handoffs = new ArrayList<>();
        int crossed = 0;
        for (int i = 1; i < holds.size(); i++) {
            Hold previous = holds.get(i - 1);
            Hold next = holds.get(i);
            if (next.acquired() < previous.released()) {
                throw new IllegalStateException("two holders at once: " + previous + " and " + next);
            }
            handoffs.add(next.acquired() - previous.released());
            if (next.jvm() != previous.jvm()) {
                crossed++;
            }
        }
        Collections.sort(handoffs);
        double rate = holds.size() / (double) seconds;
        System.out.printf(
                "%-6s 2 JVMs x %d threads: %,.0f acquisitions/s, handoff p50 %.2f ms, p99 %.2f ms, %d%% across JVMs"
                        + " (%d holds)%n",
                mode,
                THREADS,
                rate,
                percentile(handoffs, 0.50) / 1e3,
                percentile(handoffs, 0.99) / 1e3,
                handoffs.isEmpty() ? 0 : 100 * crossed / handoffs.size(),
                holds.size());
        return rate;
    }

    /** When both JVMs start and end (epoch ms), agreed once both are set up. */
    @FunctionalInterface
    interface Schedule {
        long[] agree() throws Exception;
    }

    /** This JVM's part: {@value #THREADS} threads contend from the start to the end that {@code schedule} agrees. */
    private static List<Hold> contend(String mode, String name, int jvm, Schedule schedule) throws Exception {
        EntityManagerFactory factory = BenchDatabase.POSTGRESQL.factory();
        ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (factory;
                LockRegistry registry = LockRegistry.builder()
                        .store(
                                "db",
                                JpaLockStore.builder(factory).createTable(true).build())
                        .build()) {
            registry.lock(name, Duration.ofSeconds(1)).isLocked(); // sets the store up before the start
            long[] times = schedule.agree();
            long startAt = times[0];
            long endAt = times[1];
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(
                        () -> {
                            try {
                                Thread.sleep(Math.max(0, startAt - System.currentTimeMillis()));
                                while (System.currentTimeMillis() < endAt) {
                                    Lock lock = registry.lock(name, Duration.ofMillis(TTL_MILLIS));
                                    boolean acquired;
                                    if (mode.equals("poller")) {
                                        acquired = lock.get();
                                        if (!acquired) {
                                            Thread.sleep(POLL_MILLIS);
                                            continue;
                                        }
                                    } else {
                                        acquired = lock.block(Duration.ofSeconds(30));
                                    }
                                    if (!acquired) {
                                        throw new IllegalStateException("waited 30 s");
                                    }
                                    long acquiredAt = micros();
                                    work();
                                    long releasedAt = micros();
                                    if (!lock.release()) {
                                        throw new IllegalStateException("lost the lock");
                                    }
                                    holds.add(new Hold(acquiredAt, releasedAt, jvm));
                                    // work outside the lock, so that the releasing thread does not simply take
                                    // the lock back at once: the next holder is one that waited
                                    LockSupport.parkNanos(THINK_NANOS);
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (RuntimeException e) {
                                failures.add(e);
                            }
                        },
                        "contender-" + jvm + "-" + t);
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("contenders failed: " + failures);
        }
        return new ArrayList<>(holds);
    }

    /** Polls for a file the other JVM writes, up to two minutes (a JVM on a busy machine starts slowly). */
    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the other JVM did not get ready within two minutes");
            }
            Thread.sleep(20);
        }
    }

    private static long[] readSchedule(Path go) throws Exception {
        awaitFile(go);
        String[] times = Files.readString(go).trim().split(" ");
        return new long[] {Long.parseLong(times[0]), Long.parseLong(times[1])};
    }

    private static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    private static double percentile(List<Long> sorted, double p) {
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.min(sorted.size() - 1, (int) (p * sorted.size())));
    }
}

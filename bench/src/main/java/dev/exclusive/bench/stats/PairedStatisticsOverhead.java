package dev.exclusive.bench.stats;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.memory.MemoryLockStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@link StatisticsOverheadBenchmark}'s comparison, paired for a shared, loaded machine: each round runs 200,000
 * acquire+release on the memory store without a listener, then as many with {@link LockStatistics} as the only
 * listener (the order alternates by round), and measures both on this thread's CPU clock as well as the wall clock, so
 * that the time other processes take from this one counts in neither. Prints each round and the median and
 * quartiles of the overhead per acquire+release (with − without), in nanoseconds, for a reused handle, a new handle
 * per call given a fixed group (what {@code @Exclusive} does: its template), and a new handle per call whose group is
 * derived from its name. At the end it prints the statistics' last minute, to show they counted, and the CPU time of
 * one event (an acquisition, a busy answer) handed straight to a {@code LockStatistics}.
 *
 * <p>With {@code noop} as second argument the reference registry has a listener that does nothing, so the
 * difference leaves out what any listener costs a handle (two clock readings, the events' durations) and is
 * what the statistics themselves add.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.stats.PairedStatisticsOverhead [rounds [noop]]}
 */
public final class PairedStatisticsOverhead {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String NAME = "bench:product:42";
    private static final int OPS = 200_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PairedStatisticsOverhead() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        boolean againstNoOp = args.length > 1 && args[1].equals("noop");
        LockRegistry.Builder reference = LockRegistry.builder().store("memory", new MemoryLockStore());
        if (againstNoOp) {
            reference.listener(new LockListener() {});
        }
        LockStatistics statistics = new LockStatistics();
        try (LockRegistry plain = reference.build();
                LockRegistry counted = LockRegistry.builder()
                        .store("memory", new MemoryLockStore())
                        .listener(statistics)
                        .build()) {
            compare("reused handle", rounds, plain.lock(NAME, TTL), counted.lock(NAME, TTL), null, null, null);
            compare("new handle, template", rounds, null, null, plain, counted, "bench:product:{id}");
            compare("new handle, derived", rounds, null, null, plain, counted, null);
        }
        System.out.println("statistics, last minute: " + statistics.lastMinute("memory"));
        events(rounds);
    }

    /** The CPU time of one event handed straight to a {@link LockStatistics}, without any lock call. */
    private static void events(int rounds) {
        LockStatistics statistics = new LockStatistics();
        double[] acquired = new double[rounds];
        double[] busy = new double[rounds];
        Duration waited = Duration.ofNanos(1_700);
        try (LockRegistry registry =
                LockRegistry.builder().store("memory", new MemoryLockStore()).build()) {
            Lock lock = registry.lock(NAME, TTL).group("bench:product:{id}");
            for (int round = -3; round < rounds; round++) {
                long start = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < OPS; i++) {
                    statistics.acquired(lock, waited);
                }
                long middle = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < OPS; i++) {
                    statistics.busy(lock, waited);
                }
                long end = THREADS.getCurrentThreadCpuTime();
                if (round >= 0) {
                    acquired[round] = (double) (middle - start) / OPS;
                    busy[round] = (double) (end - middle) / OPS;
                }
            }
        }
        Arrays.sort(acquired);
        Arrays.sort(busy);
        System.out.printf(
                "one event, CPU median: acquired %.0f ns (quartiles %.0f–%.0f), busy %.0f ns (quartiles %.0f–%.0f)%n",
                acquired[rounds / 2],
                acquired[rounds / 4],
                acquired[rounds * 3 / 4],
                busy[rounds / 2],
                busy[rounds / 4],
                busy[rounds * 3 / 4]);
    }

    /**
     * Either two handles to reuse, or two registries to take a new handle from for every call, given {@code group}
     * if not {@code null}.
     */
    private static void compare(
            String what,
            int rounds,
            Lock plainLock,
            Lock countedLock,
            LockRegistry plain,
            LockRegistry counted,
            String group) {
        double[] cpuOverhead = new double[rounds];
        double[] wallOverhead = new double[rounds];
        double[] cpuPlain = new double[rounds];
        for (int round = -3; round < rounds; round++) { // three warm-up rounds
            boolean plainFirst = (round & 1) == 0;
            long[] first = plainFirst ? run(plainLock, plain, group) : run(countedLock, counted, group);
            long[] second = plainFirst ? run(countedLock, counted, group) : run(plainLock, plain, group);
            long[] without = plainFirst ? first : second;
            long[] with = plainFirst ? second : first;
            if (round >= 0) {
                cpuPlain[round] = (double) without[0] / OPS;
                cpuOverhead[round] = (double) (with[0] - without[0]) / OPS;
                wallOverhead[round] = (double) (with[1] - without[1]) / OPS;
                System.out.printf(
                        "%-20s round %2d: CPU without %6.0f ns, with %6.0f ns, overhead %5.0f ns; wall overhead %5.0f ns%n",
                        what, round, cpuPlain[round], (double) with[0] / OPS, cpuOverhead[round], wallOverhead[round]);
            }
        }
        Arrays.sort(cpuOverhead);
        Arrays.sort(wallOverhead);
        Arrays.sort(cpuPlain);
        System.out.printf(
                "%-20s median CPU without %.0f ns; overhead per acquire+release: CPU median %.0f ns (quartiles %.0f–%.0f),"
                        + " wall median %.0f ns (quartiles %.0f–%.0f)%n",
                what,
                cpuPlain[rounds / 2],
                cpuOverhead[rounds / 2],
                cpuOverhead[rounds / 4],
                cpuOverhead[rounds * 3 / 4],
                wallOverhead[rounds / 2],
                wallOverhead[rounds / 4],
                wallOverhead[rounds * 3 / 4]);
    }

    /** @return this thread's CPU nanoseconds and the wall nanoseconds for {@link #OPS} acquire+release */
    private static long[] run(Lock reused, LockRegistry registry, String group) {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        for (int i = 0; i < OPS; i++) {
            Lock lock = reused != null ? reused : registry.lock(NAME, TTL);
            if (group != null) {
                lock.group(group);
            }
            if (!lock.get() || !lock.release()) {
                throw new IllegalStateException("uncontended acquire+release failed");
            }
        }
        return new long[] {THREADS.getCurrentThreadCpuTime() - cpu, System.nanoTime() - wall};
    }
}

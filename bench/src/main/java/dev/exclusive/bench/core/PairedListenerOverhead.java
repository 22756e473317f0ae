package dev.exclusive.bench.core;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;

/**
 * The paired rounds of the listener-overhead harnesses ({@code PairedTelemetryOverhead},
 * {@code PairedStatisticsOverhead}), for a shared, loaded machine: each round runs {@value #OPS} acquire+release on
 * a registry without the listener under test, then as many on one with it (the order alternates by round), on this
 * thread's CPU clock as well as the wall clock, so that the time other processes take from this one counts in
 * neither. Prints each round and the median and quartiles of the overhead per acquire+release (with − without), in
 * nanoseconds, for a reused handle, a new handle per call given a fixed group (what {@code @Exclusive} does: its
 * template), and a new handle per call whose group is derived from its name.
 */
public final class PairedListenerOverhead {

    /** How long each handle's lease lasts. */
    public static final Duration TTL = Duration.ofSeconds(30);
    /** The one name every call locks. */
    public static final String NAME = "bench:product:42";
    /** Acquire+release per round and registry. */
    public static final int OPS = 200_000;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PairedListenerOverhead() {}

    /**
     * Runs the three comparisons, each over {@code rounds} rounds after three warm-up rounds.
     *
     * @param rounds   measured rounds per comparison
     * @param without  the reference registry
     * @param with     the same store type with the listener under test
     */
    public static void compare(int rounds, LockRegistry without, LockRegistry with) {
        compare("reused handle", rounds, without.lock(NAME, TTL), with.lock(NAME, TTL), null, null, null);
        compare("new handle, template", rounds, null, null, without, with, "bench:product:{id}");
        compare("new handle, derived", rounds, null, null, without, with, null);
    }

    /** @return this thread's CPU time in nanoseconds */
    public static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * Either two handles to reuse, or two registries to take a new handle from for every call, given {@code group}
     * if not {@code null}.
     */
    private static void compare(
            String what,
            int rounds,
            Lock plainLock,
            Lock listenedLock,
            LockRegistry plain,
            LockRegistry listened,
            String group) {
        double[] cpuOverhead = new double[rounds];
        double[] wallOverhead = new double[rounds];
        double[] cpuPlain = new double[rounds];
        for (int round = -3; round < rounds; round++) { // three warm-up rounds
            boolean plainFirst = (round & 1) == 0;
            long[] first = plainFirst ? run(plainLock, plain, group) : run(listenedLock, listened, group);
            long[] second = plainFirst ? run(listenedLock, listened, group) : run(plainLock, plain, group);
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
        long cpu = cpuNanos();
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
        return new long[] {cpuNanos() - cpu, System.nanoTime() - wall};
    }
}

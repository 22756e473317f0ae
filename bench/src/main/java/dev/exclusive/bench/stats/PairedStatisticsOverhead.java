package dev.exclusive.bench.stats;

import static dev.exclusive.bench.core.PairedListenerOverhead.NAME;
import static dev.exclusive.bench.core.PairedListenerOverhead.OPS;
import static dev.exclusive.bench.core.PairedListenerOverhead.TTL;
import static dev.exclusive.bench.core.PairedListenerOverhead.cpuNanos;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.bench.core.PairedListenerOverhead;
import dev.exclusive.memory.MemoryLockStore;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@link StatisticsOverheadBenchmark}'s comparison, paired for a shared, loaded machine ({@link PairedListenerOverhead}):
 * acquire+release on the memory store without a listener against the same with {@link LockStatistics} as the only
 * listener. At the end it prints the statistics' last minute, to show they counted, and the CPU time of
 * one event (an acquisition, a busy answer) handed straight to a {@code LockStatistics}.
 *
 * <p>With {@code noop} as second argument the reference registry has a listener that does nothing, so the
 * difference leaves out what any listener costs a handle (two clock readings, the events' durations) and is
 * what the statistics themselves add.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.exclusive.bench.stats.PairedStatisticsOverhead [rounds [noop]]}
 */
public final class PairedStatisticsOverhead {

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
            PairedListenerOverhead.compare(rounds, plain, counted);
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
                long start = cpuNanos();
                for (int i = 0; i < OPS; i++) {
                    statistics.acquired(lock, waited);
                }
                long middle = cpuNanos();
                for (int i = 0; i < OPS; i++) {
                    statistics.busy(lock, waited);
                }
                long end = cpuNanos();
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
}

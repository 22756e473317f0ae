package dev.exclusive.bench.core;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures contended locking: threads loop acquire → work → release on one lock for a fixed time; reports
 * acquisitions per second and the release-to-acquire handoff (from the instant one holder releases to the
 * instant the next holder has the lock) at p50 and p99. A harness rather than a JMH benchmark because the
 * figure of interest is a latency between two threads.
 */
public final class Handoff {

    /** A lock under test: acquire blocks until held; release frees it. */
    public interface Subject {
        void acquire() throws Exception;

        void release() throws Exception;
    }

    /** What one run measured. */
    public record Result(String name, long acquisitions, double perSecond, double p50Micros, double p99Micros) {
        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%-28s %9d acquisitions  %10.0f /s  handoff p50 %8.1f µs  p99 %9.1f µs",
                    name,
                    acquisitions,
                    perSecond,
                    p50Micros,
                    p99Micros);
        }
    }

    private Handoff() {}

    /**
     * Where the instant of the last release is kept, in {@link System#nanoTime()} units: in this JVM, or in memory
     * that JVMs on one host share (Linux's monotonic clock, which {@code nanoTime} reads, is one for the host).
     */
    public interface LastRelease {
        long get();

        void set(long nanos);
    }

    /** The handoffs one process measured, unsorted. */
    public record Samples(long[] nanos, int count) {}

    /**
     * @param name          the label
     * @param subject       the lock
     * @param threads       contending threads
     * @param workMicros    busy work inside the critical section
     * @param seconds       how long to run (after one second of warm-up)
     * @return the figures
     */
    public static Result run(String name, Subject subject, int threads, long workMicros, double seconds)
            throws InterruptedException {
        AtomicLong released = new AtomicLong();
        LastRelease last = new LastRelease() {
            @Override
            public long get() {
                return released.get();
            }

            @Override
            public void set(long nanos) {
                released.set(nanos);
            }
        };
        long start = System.nanoTime();
        long from = start + 1_000_000_000L;
        long end = from + (long) (seconds * 1e9);
        return result(name, List.of(run(subject, threads, workMicros, start, from, end, last)), end - from);
    }

    /**
     * Runs the threads of one process from {@code start} to {@code end} (both {@code nanoTime}), counting the
     * acquisitions and handoffs from {@code measureFrom} on; several processes may run together on one lock.
     *
     * @return the handoffs measured
     */
    public static Samples run(
            Subject subject, int threads, long workMicros, long start, long measureFrom, long end, LastRelease last)
            throws InterruptedException {
        long[][] samples = new long[threads][];
        int[] counts = new int[threads];
        long workNanos = workMicros * 1_000;
        Thread[] workers = new Thread[threads];
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            samples[t] = new long[1 << 16];
            workers[t] = new Thread(
                    () -> {
                        try {
                            while (System.nanoTime() - start < 0) {
                                Thread.onSpinWait();
                            }
                            while (System.nanoTime() - end < 0) {
                                subject.acquire();
                                long acquired = System.nanoTime();
                                long previous = last.get();
                                if (previous != 0 && acquired - measureFrom >= 0) {
                                    if (counts[index] == samples[index].length) {
                                        samples[index] = Arrays.copyOf(samples[index], counts[index] * 2);
                                    }
                                    samples[index][counts[index]++] = acquired - previous;
                                }
                                long until = acquired + workNanos;
                                while (System.nanoTime() - until < 0) {
                                    Thread.onSpinWait();
                                }
                                last.set(System.nanoTime());
                                subject.release();
                            }
                        } catch (Throwable e) {
                            failure[0] = e;
                        }
                    },
                    "handoff-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("a contending thread failed", failure[0]);
        }
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(samples[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        return new Samples(all, total);
    }

    /** @return the figures of the handoffs that one or more processes measured over {@code measuredNanos} */
    public static Result result(String name, List<Samples> parts, long measuredNanos) {
        int total = parts.stream().mapToInt(Samples::count).sum();
        long[] all = new long[total];
        int at = 0;
        for (Samples part : parts) {
            System.arraycopy(part.nanos(), 0, all, at, part.count());
            at += part.count();
        }
        Arrays.sort(all);
        double p50 = total == 0 ? Double.NaN : all[(int) (total * 0.50)] / 1_000.0;
        double p99 = total == 0 ? Double.NaN : all[Math.min(total - 1, (int) (total * 0.99))] / 1_000.0;
        return new Result(name, total, total / (measuredNanos / 1e9), p50, p99);
    }
}

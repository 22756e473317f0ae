package dev.exclusive.bench.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
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
     * @param name          the label
     * @param subject       the lock
     * @param threads       contending threads
     * @param workMicros    busy work inside the critical section
     * @param seconds       how long to run (after one second of warm-up)
     * @return the figures
     */
    public static Result run(String name, Subject subject, int threads, long workMicros, double seconds)
            throws InterruptedException {
        run(subject, threads, workMicros, 1.0); // warm-up
        long[][] samples = new long[threads][];
        int[] counts = new int[threads];
        long elapsed = run(subject, threads, workMicros, seconds, samples, counts);
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(samples[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        Arrays.sort(all);
        double p50 = total == 0 ? Double.NaN : all[(int) (total * 0.50)] / 1_000.0;
        double p99 = total == 0 ? Double.NaN : all[Math.min(total - 1, (int) (total * 0.99))] / 1_000.0;
        return new Result(name, total, total / (elapsed / 1e9), p50, p99);
    }

    private static void run(Subject subject, int threads, long workMicros, double seconds) throws InterruptedException {
        run(subject, threads, workMicros, seconds, new long[threads][], new int[threads]);
    }

    private static long run(
            Subject subject, int threads, long workMicros, double seconds, long[][] samples, int[] counts)
            throws InterruptedException {
        AtomicLong releasedAt = new AtomicLong(0);
        CountDownLatch start = new CountDownLatch(1);
        long workNanos = workMicros * 1_000;
        long[] deadline = new long[1];
        Thread[] workers = new Thread[threads];
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            samples[t] = new long[1 << 16];
            workers[t] = new Thread(
                    () -> {
                        try {
                            start.await();
                            while (System.nanoTime() - deadline[0] < 0) {
                                subject.acquire();
                                long acquired = System.nanoTime();
                                long previous = releasedAt.get();
                                if (previous != 0) {
                                    if (counts[index] == samples[index].length) {
                                        samples[index] = Arrays.copyOf(samples[index], counts[index] * 2);
                                    }
                                    samples[index][counts[index]++] = acquired - previous;
                                }
                                long until = acquired + workNanos;
                                while (System.nanoTime() - until < 0) {
                                    Thread.onSpinWait();
                                }
                                releasedAt.set(System.nanoTime());
                                subject.release();
                            }
                        } catch (Throwable e) {
                            failure[0] = e;
                        }
                    },
                    "handoff-" + t);
            workers[t].start();
        }
        long begin = System.nanoTime();
        deadline[0] = begin + (long) (seconds * 1e9);
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("a contending thread failed", failure[0]);
        }
        return System.nanoTime() - begin;
    }
}

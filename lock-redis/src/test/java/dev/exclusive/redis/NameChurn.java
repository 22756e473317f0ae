package dev.exclusive.redis;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.spi.LockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes and frees distinct names as fast as a few threads can, through a {@link LockRegistry} as an application
 * would: each name once, so every one leaves its fence counter behind. Used to measure what names cost Redis.
 */
final class NameChurn {

    /**
     * @param released names acquired and released
     * @param failed   attempts that were not acquired, did not release, or failed
     * @param nanos    wall time of the run
     */
    record Result(long released, long failed, long nanos) {
        double perSecond() {
            return released * 1e9 / nanos;
        }
    }

    private NameChurn() {}

    /**
     * @param store   the store, closed afterwards
     * @param prefix  the names are {@code prefix + 0 ... prefix + (count - 1)}
     * @param count   how many names
     * @param threads how many threads share them
     * @param ttl     each lock's ttl (released at once)
     */
    static Result run(LockStore store, String prefix, int count, int threads, Duration ttl)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        AtomicLong released = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try (LockRegistry registry =
                LockRegistry.builder().store("churn", store).build()) {
            long began = System.nanoTime();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(
                        () -> {
                            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                                try {
                                    Lock lock = registry.lock(prefix + i, ttl);
                                    if (lock.get() && lock.release()) {
                                        released.incrementAndGet();
                                    } else {
                                        failed.incrementAndGet();
                                    }
                                } catch (RuntimeException e) {
                                    failed.incrementAndGet();
                                }
                            }
                        },
                        "churn-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            return new Result(released.get(), failed.get(), System.nanoTime() - began);
        }
    }
}

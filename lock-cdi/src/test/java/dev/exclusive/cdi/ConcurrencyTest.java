package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

    @Singleton // no client proxy: the test reads its fields
    static class Counter {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();

        @Exclusive(value = "counter", maxWait = 30)
        public void increment() {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            for (int i = 0; i < 1000; i++) {
                Thread.onSpinWait();
            }
            runs.incrementAndGet();
            inside.decrementAndGet();
        }
    }

    @Test
    void thirtyTwoThreadsOnOneExclusiveMethodNeverOverlap() throws Exception {
        try (Deployment deployment = Deployment.start(Map.of(), Counter.class)) {
            Counter counter = deployment.select(Counter.class);
            ExecutorService threads = Executors.newFixedThreadPool(32);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> calls = new ArrayList<>();
            try {
                for (int i = 0; i < 32; i++) {
                    calls.add(threads.submit(() -> {
                        start.await();
                        for (int j = 0; j < 20; j++) {
                            counter.increment();
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> call : calls) {
                    call.get();
                }
            } finally {
                threads.shutdownNow();
            }

            assertThat(counter.overlaps).hasValue(0);
            assertThat(counter.runs).hasValue(32 * 20);
        }
    }
}

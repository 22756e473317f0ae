package dev.exclusive.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LocalSignalsTest {

    private final LocalSignals signals = new LocalSignals();

    @Test
    void aSignalAfterRegistrationEndsTheWait() throws Exception {
        CountDownLatch registered = new CountDownLatch(1);
        long[] waitedNanos = new long[1];
        Thread waiter = new Thread(() -> {
            long start = System.nanoTime();
            try {
                signals.await("x", Duration.ofSeconds(20), () -> {
                    registered.countDown();
                    return true;
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            waitedNanos[0] = System.nanoTime() - start;
        });
        waiter.start();
        assertTrue(registered.await(5, TimeUnit.SECONDS));
        signals.signal("x");
        waiter.join(10_000);
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(waitedNanos[0]) < 10, "the signal ended the wait");
        assertEquals(0, signals.waitingNames(), "nothing is kept once nobody waits");
    }

    @Test
    void aFreeLockEndsTheWaitAtOnce() throws InterruptedException {
        long start = System.nanoTime();
        signals.await("x", Duration.ofSeconds(20), () -> false);
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 10);
    }

    @Test
    void aSignalWakesOneWaiterAndTheNextSignalTheNext() throws Exception {
        int threads = 3;
        CountDownLatch registered = new CountDownLatch(threads);
        java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
        Thread[] waiters = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            waiters[i] = new Thread(() -> {
                try {
                    signals.await("x", Duration.ofSeconds(20), () -> {
                        registered.countDown();
                        return true;
                    });
                    woken.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiters[i].start();
        }
        assertTrue(registered.await(5, TimeUnit.SECONDS));
        signals.signal("x");
        awaitCount(woken, 1);
        Thread.sleep(100); // a herd would have woken the others by now
        assertEquals(1, woken.get(), "one release wakes one waiter");
        signals.signal("x");
        awaitCount(woken, 2);
        signals.signalAll();
        awaitCount(woken, 3);
        for (Thread waiter : waiters) {
            waiter.join(5_000);
        }
        assertEquals(0, signals.waitingNames());
    }

    @Test
    void aWaiterThatLeftDoesNotSwallowTheNextSignal() throws Exception {
        CountDownLatch firstRegistered = new CountDownLatch(1);
        CountDownLatch secondRegistered = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> firstEnded =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread first = new Thread(() -> {
            try {
                signals.await("x", Duration.ofSeconds(20), () -> {
                    firstRegistered.countDown();
                    return true;
                });
            } catch (InterruptedException expected) {
                firstEnded.set(expected);
            }
        });
        first.start();
        assertTrue(firstRegistered.await(5, TimeUnit.SECONDS));
        java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
        Thread second = new Thread(() -> {
            try {
                signals.await("x", Duration.ofSeconds(20), () -> {
                    secondRegistered.countDown();
                    return true;
                });
                woken.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        second.start();
        assertTrue(secondRegistered.await(5, TimeUnit.SECONDS));
        first.interrupt();
        first.join(5_000);
        assertTrue(firstEnded.get() instanceof InterruptedException, "the interrupted waiter left");
        signals.signal("x");
        awaitCount(woken, 1);
        second.join(5_000);
    }

    private static void awaitCount(java.util.concurrent.atomic.AtomicInteger count, int expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count.get() < expected && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertEquals(expected, count.get());
    }

    @Test
    void signalsForOtherNamesDoNotWake() throws InterruptedException {
        signals.signal("y");
        long start = System.nanoTime();
        signals.await("x", Duration.ofMillis(100), () -> true);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 95);
    }
}

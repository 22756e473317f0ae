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
    void signalsForOtherNamesDoNotWake() throws InterruptedException {
        signals.signal("y");
        long start = System.nanoTime();
        signals.await("x", Duration.ofMillis(100), () -> true);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 95);
    }
}

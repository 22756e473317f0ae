package dev.exclusive.demo.fence;

import dev.exclusive.cdi.LockAcquired;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Added to the test's WAR: holds up the next acquisition of one lock on the thread that acquired it, after the lock
 * is taken and before the method under {@code @Exclusive} (and its transaction) begins, until the test opens the
 * gate. {@link LockAcquired} is fired synchronously on the acquiring thread, so the demo's own code needs no hook.
 */
@ApplicationScoped
public class PurchaseGate {

    /** One armed pause: the lock it waits for, the hold it caught, and the gate that lets it go. */
    private record Pause(String lockName, CompletableFuture<LockAcquired> caught, CountDownLatch open) {}

    private final AtomicReference<Pause> armed = new AtomicReference<>();

    /** Holds up the next acquisition of a lock whose full name ends with {@code lockName}. */
    public void pauseNext(String lockName) {
        armed.set(new Pause(lockName, new CompletableFuture<>(), new CountDownLatch(1)));
    }

    /** @return the hold that was held up, once its thread waits at the gate */
    public LockAcquired awaitPaused(Duration wait) throws Exception {
        return armed.get().caught().get(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Lets the held-up thread go on. */
    public void open() {
        armed.get().open().countDown();
    }

    void acquired(@Observes LockAcquired acquired) {
        Pause pause = armed.get();
        if (pause == null
                || !acquired.lockName().endsWith(pause.lockName())
                || !pause.caught().complete(acquired)) {
            return; // not the lock, or its one pause is taken
        }
        try {
            if (!pause.open().await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("The test never opened the gate for " + acquired.lockName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

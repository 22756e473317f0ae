package dev.exclusive.demo.semantics;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The same three {@code @Exclusive} methods on a CDI bean, a {@code @Stateless} and a {@code @Singleton} EJB, all
 * on the lock {@code it:semantics:<kind>:<key>}: {@code hold} (get semantics, THROW) keeps the lock until told to
 * leave, {@code waitFor} waits up to 10 s (block semantics), {@code skipIfBusy} is skipped when busy (SKIP).
 */
public interface Guarded {

    /** Signals {@code entered}, waits for {@code leave}, appends {@code "hold"} to {@code log}. */
    String hold(String key, CountDownLatch entered, CountDownLatch leave, List<String> log);

    /** Appends {@code "wait"} to {@code log}. */
    String waitFor(String key, List<String> log);

    /** Appends {@code "skip-ran"} to {@code log}. */
    Optional<String> skipIfBusy(String key, List<String> log);

    /** Waits for a latch without swallowing the interrupt. */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("The test never released the latch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

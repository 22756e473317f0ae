package dev.exclusive.spi;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Wakes the threads of this JVM that wait for a lock name, for stores to use in {@link LockStore#awaitRelease}.
 * A release wakes one waiter, the longest waiting, so that a release under contention costs one new attempt, not
 * one per waiter; the woken waiter always tries to acquire once more (the core does so after every wake-up), and
 * if it is interrupted instead it passes the wake-up on. A name costs memory only while some thread waits on it.
 *
 * <p>No wake-up is lost to a race with registration: {@link #await} registers the waiter first and only then asks
 * {@code stillBusy}, so a release either happens before that check (and the check sees it) or after the
 * registration (and its {@link #signal} reaches a registered waiter).
 */
public final class LocalSignals {

    private final ConcurrentHashMap<String, ArrayDeque<Waiter>> waiting = new ConcurrentHashMap<>();

    /** One parked thread; {@code signalled} is set once, by the signal that chose it. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        volatile boolean signalled;
    }

    /**
     * Blocks until this thread is chosen by a {@link #signal} of {@code name} (or woken by {@link #signalAll()}),
     * or {@code maxWait} passes; returns at once if {@code stillBusy} answers {@code false} after the waiter is
     * registered.
     *
     * @param name      the lock name
     * @param maxWait   the longest to block
     * @param stillBusy a check of the lock's state, run once after registration
     * @throws InterruptedException if interrupted while blocked (a wake-up it had received goes to the next waiter)
     */
    public void await(String name, Duration maxWait, BooleanSupplier stillBusy) throws InterruptedException {
        Waiter me = new Waiter();
        waiting.compute(name, (key, queue) -> {
            ArrayDeque<Waiter> waiters = queue == null ? new ArrayDeque<>() : queue;
            waiters.addLast(me);
            return waiters;
        });
        boolean interrupted = false;
        try {
            if (!stillBusy.getAsBoolean()) {
                return;
            }
            long deadline = System.nanoTime() + maxWait.toNanos();
            while (!me.signalled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    interrupted = true;
                    throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
                }
            }
        } finally {
            waiting.computeIfPresent(name, (key, waiters) -> {
                waiters.remove(me);
                return waiters.isEmpty() ? null : waiters;
            });
            if (interrupted && me.signalled) {
                signal(name);
            }
        }
    }

    /**
     * Wakes the longest-waiting thread on {@code name}, if any. Cheap when nobody waits.
     *
     * @param name the lock name
     */
    public void signal(String name) {
        if (waiting.containsKey(name)) {
            waiting.computeIfPresent(name, (key, waiters) -> {
                Waiter next = waiters.pollFirst();
                if (next != null) {
                    next.signalled = true;
                    LockSupport.unpark(next.thread);
                }
                return waiters.isEmpty() ? null : waiters;
            });
        }
    }

    /**
     * Wakes every waiting thread, whatever its name: for a store that cannot tell which lock changed (a lost
     * connection, a close).
     */
    public void signalAll() {
        for (String name : waiting.keySet()) {
            waiting.computeIfPresent(name, (key, waiters) -> {
                for (Waiter waiter : waiters) {
                    waiter.signalled = true;
                    LockSupport.unpark(waiter.thread);
                }
                waiters.clear();
                return null;
            });
        }
    }

    /** @return how many names have waiters now: whether anyone waits (a store's watchdog asks), and for tests */
    public int waitingNames() {
        return waiting.size();
    }
}

package dev.exclusive.spi;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Wakes the threads of this JVM that wait for a lock name, for stores to use in
 * {@link LockStore#awaitRelease}. A name costs memory only while some thread waits on it.
 *
 * <p>No wake-up is lost: {@link #await} registers the waiter first and only then asks {@code stillBusy}, so a
 * release either happens before that check (and the check sees it) or after the registration (and its
 * {@link #signal} reaches the waiter).
 */
public final class LocalSignals {

    private final ConcurrentHashMap<String, Waiters> waiting = new ConcurrentHashMap<>();

    /**
     * Blocks until {@code name} is signalled or {@code maxWait} passes; returns at once if {@code stillBusy}
     * answers {@code false} after the waiter is registered.
     *
     * @param name      the lock name
     * @param maxWait   the longest to block
     * @param stillBusy a check of the lock's state, run once after registration
     * @throws InterruptedException if interrupted while blocked
     */
    public void await(String name, Duration maxWait, BooleanSupplier stillBusy) throws InterruptedException {
        long[] generation = new long[1];
        Waiters waiters = waiting.compute(name, (key, existing) -> {
            Waiters group = existing == null ? new Waiters() : existing;
            group.count++;
            generation[0] = group.generation;
            return group;
        });
        try {
            if (!stillBusy.getAsBoolean()) {
                return;
            }
            long nanos = maxWait.toNanos();
            waiters.lock.lockInterruptibly();
            try {
                while (waiters.generation == generation[0] && nanos > 0) {
                    nanos = waiters.changed.awaitNanos(nanos);
                }
            } finally {
                waiters.lock.unlock();
            }
        } finally {
            waiting.compute(name, (key, group) -> --group.count == 0 ? null : group);
        }
    }

    /**
     * Wakes every thread waiting on {@code name}. Cheap when nobody waits.
     *
     * @param name the lock name
     */
    public void signal(String name) {
        Waiters waiters = waiting.get(name);
        if (waiters != null) {
            waiters.wake();
        }
    }

    /** Wakes every waiting thread, whatever its name (for a store that cannot tell which lock changed). */
    public void signalAll() {
        waiting.values().forEach(Waiters::wake);
    }

    /** @return how many names have waiters now (for tests of reclamation) */
    public int waitingNames() {
        return waiting.size();
    }

    /**
     * The waiters of one name. {@code count} is only changed inside the map's {@code compute}; {@code generation}
     * only under {@code lock}, and is read at registration (inside {@code compute}) so that a signal sent after
     * a waiter registered always ends its wait.
     */
    private static final class Waiters {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        volatile long generation;
        int count;

        void wake() {
            lock.lock();
            try {
                generation++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}

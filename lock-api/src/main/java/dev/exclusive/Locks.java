package dev.exclusive;

import dev.exclusive.internal.CurrentLocks;
import java.util.Optional;

/**
 * The locks the current thread runs work under, for code that must only run under a lock: a method called from
 * {@link Lock#get(LockedWork)}, {@link Lock#block(java.time.Duration, LockedWork)} or an {@code @Exclusive} method
 * can ask which lock it runs under, assert that it does, and pass its {@linkplain Lock#fence() fence} on to a
 * write.
 *
 * <pre>{@code
 * void writeReport(Report report) {
 *     Lock lock = Locks.assertHeld();          // fails fast when called outside the lock
 *     reports.save(report, lock.fence().getAsLong());
 * }
 * }</pre>
 *
 * <p>Per thread: work handed to another thread does not see the caller's locks. Thread-safe.
 */
public final class Locks {

    private Locks() {}

    /**
     * @return the innermost lock whose work the current thread is running, if any (whether or not its lease has
     *         run out since)
     */
    public static Optional<Lock> current() {
        return Optional.ofNullable(CurrentLocks.innermost());
    }

    /**
     * The innermost lock whose work the current thread is running, if its lease has not run out by this
     * handle's estimate (no store call).
     *
     * @return that lock
     * @throws IllegalStateException if the thread runs no work under a lock, or the lease of the innermost one has
     *                               run out or was found lost
     */
    public static Lock assertHeld() {
        Lock lock = CurrentLocks.innermost();
        if (lock == null) {
            throw new IllegalStateException("No lock is held here: this code must run as the work of Lock.get(work),"
                    + " Lock.block(wait, work) or an @Exclusive method, on the thread that runs it");
        }
        if (lock.isExpired()) {
            throw new IllegalStateException("The lease of lock '" + lock.name() + "' in store '" + lock.storeName()
                    + "' has run out or was lost while this work ran; another caller may hold the lock now");
        }
        return lock;
    }
}

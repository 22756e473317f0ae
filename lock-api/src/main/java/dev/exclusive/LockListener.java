package dev.exclusive;

import java.time.Duration;

/**
 * Hears what the handles of a registry do, for events, metrics and the console. Called synchronously on the
 * thread that did it (renewal events on the renewal thread), after the store answered: keep it fast and do
 * not throw; an exception from a listener is logged and otherwise ignored.
 *
 * <p>Each acquisition attempt ends in exactly one of {@link #acquired(Lock, Duration)},
 * {@link #busy(Lock, Duration)}, {@link #timedOut(Lock, Duration)}, {@link #failed(Lock, Operation, Duration,
 * LockStoreUnavailableException)} or {@link #interrupted(Lock, Duration)}; an attempt that waits
 * ({@link Lock#block(Duration)} with a wait longer than zero that finds the lock held) hears
 * {@link #waiting(Lock)} once before its outcome, and only such an attempt can end in
 * {@link #interrupted(Lock, Duration)}. Each hold a handle acquired ends in at most one of
 * {@link #released(Lock, Duration)} or {@link #expired(Lock, Duration)}, when the handle releases it.
 *
 * <p>The methods that take a {@link Duration} were added after the first ones; by default each calls its older
 * form ({@link #acquired(Lock)}, {@link #busy(Lock)}, {@link #released(Lock)},
 * {@link #forceReleased(String, String, boolean)}), so a listener written against those hears what it always
 * did. A new listener overrides the newer forms.
 */
public interface LockListener {

    /** A store operation of a handle, as {@link #failed(Lock, Operation, Duration, LockStoreUnavailableException)} names it. */
    enum Operation {
        /** An acquisition attempt: {@link Lock#get()}, {@link Lock#block(Duration)} and their callback forms. */
        ACQUIRE,
        /** {@link Lock#release()}, also at the end of the callback forms. */
        RELEASE,
        /** {@link Lock#extend()} or {@link Lock#extend(Duration)}, called by the application. */
        EXTEND
    }

    /** @param lock the handle that acquired; {@link Lock#fence()} is its new fence */
    default void acquired(Lock lock) {}

    /**
     * The handle acquired the lock. By default calls {@link #acquired(Lock)}.
     *
     * @param lock   the handle that acquired; {@link Lock#fence()} is its new fence
     * @param waited from the call ({@code get} or {@code block}) to the store's answer, waits included
     */
    default void acquired(Lock lock, Duration waited) {
        acquired(lock);
    }

    /** @param lock the handle that gave up: one attempt, or a whole wait, found the lock held */
    default void busy(Lock lock) {}

    /**
     * One attempt ({@link Lock#get()}, or {@link Lock#block(Duration)} with {@link Duration#ZERO}) found the lock
     * held. By default calls {@link #busy(Lock)}.
     *
     * @param lock   the handle that gave up
     * @param waited from the call to the store's answer
     */
    default void busy(Lock lock, Duration waited) {
        busy(lock);
    }

    /**
     * A wait longer than zero ({@link Lock#block(Duration)}) ran out with the lock still held. By default calls
     * {@link #busy(Lock)}, as a timed-out wait was reported before this method existed.
     *
     * @param lock   the handle that gave up
     * @param waited from the call to the last attempt's answer: about the wait it was given
     */
    default void timedOut(Lock lock, Duration waited) {
        busy(lock);
    }

    /**
     * A {@link Lock#block(Duration)} with a wait longer than zero found the lock held and starts to wait. Called
     * once per acquisition attempt that waits, on the waiting thread, before its first wait; the attempt's outcome
     * follows on the same thread ({@link #acquired(Lock, Duration)}, {@link #timedOut(Lock, Duration)},
     * {@link #failed(Lock, Operation, Duration, LockStoreUnavailableException)} or
     * {@link #interrupted(Lock, Duration)}). Not called for an attempt that acquires, or gives up, at its first
     * try. Nothing by default.
     *
     * @param lock the handle that waits
     */
    default void waiting(Lock lock) {}

    /**
     * A wait ({@link Lock#block(Duration)}) ended because the thread was interrupted: the caller receives a
     * {@link LockInterruptedException}, the thread's interrupt flag is set again, and the lock is not held. Always
     * preceded by {@link #waiting(Lock)} for the same attempt. Nothing by default.
     *
     * @param lock   the handle that waited
     * @param waited from the call to the interruption
     */
    default void interrupted(Lock lock, Duration waited) {}

    /**
     * A store operation of the handle failed because the store could not be reached; the caller receives
     * {@code error}. For {@link Operation#ACQUIRE} this ends the acquisition attempt. Nothing by default.
     *
     * @param lock      the handle
     * @param operation what the handle asked the store
     * @param elapsed   from the call to the failure; for an acquisition, waits included
     * @param error     the exception the caller receives
     */
    default void failed(Lock lock, Operation operation, Duration elapsed, LockStoreUnavailableException error) {}

    /** @param lock the handle whose {@link Lock#release()} freed the lock */
    default void released(Lock lock) {}

    /**
     * The handle's {@link Lock#release()} freed the lock. By default calls {@link #released(Lock)}.
     *
     * @param lock the handle
     * @param held from the acquisition to the release (for a handle restored from a token: from the restore)
     */
    default void released(Lock lock, Duration held) {
        released(lock);
    }

    /**
     * A hold of the handle ended without a release that freed it: its {@link Lock#release()} found it already over
     * (the lease had run out, and maybe someone else holds the lock now, or an operator force-released it); or the
     * handle acquired again after the lease had run out unreleased; or the release after {@code get(work)},
     * {@code block(wait, work)} or an {@code @Exclusive} method failed, and the handle gave the hold up (the store
     * frees it when its lease ends). Told once per hold, as {@link #released(Lock, Duration)} is, and never both.
     * Nothing by default.
     *
     * @param lock the handle
     * @param held from the acquisition to the end seen here: the release call, the new acquisition, or giving up
     */
    default void expired(Lock lock, Duration held) {}

    /** @param lock the auto-extending handle whose renewal found its lease gone */
    default void lost(Lock lock) {}

    /**
     * A background renewal of an {@linkplain Lock#autoExtend() auto-extending} handle could not reach the store.
     * The handle retries at the next renewal while its lease lasts; when it runs out first, {@link #lost(Lock)}
     * follows. Called on the renewal thread. Nothing by default.
     *
     * @param lock  the handle
     * @param error what the store call threw
     */
    default void renewalFailed(Lock lock, RuntimeException error) {}

    /**
     * @param storeName the store
     * @param name      the full lock name
     * @param released  whether a live lock was freed
     */
    default void forceReleased(String storeName, String name, boolean released) {}

    /**
     * A force-release by an operator or the application. By default calls
     * {@link #forceReleased(String, String, boolean)}.
     *
     * @param storeName the store
     * @param name      the full lock name
     * @param group     the lock's {@linkplain Lock#group() group}: the handle's, or by {@link LockNames#group(String)}
     *                  when the operator named the lock
     * @param released  whether a live lock was freed
     */
    default void forceReleased(String storeName, String name, String group, boolean released) {
        forceReleased(storeName, name, released);
    }
}

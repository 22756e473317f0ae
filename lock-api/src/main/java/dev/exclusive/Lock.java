package dev.exclusive;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A handle on one named lock in one store, from {@link LockRegistry#lock(String, Duration)}. Creating a handle
 * acquires nothing. Each handle has its own random owner id: only this handle, or one
 * {@linkplain LockRegistry#restore(String) restored} from its {@link #token()}, can release or extend what it
 * acquired. A handle is not reentrant: while it holds the lock, {@link #get()} on it answers {@code false}.
 *
 * <p>Handles are thread-safe, but a hold belongs to the handle, not to a thread: any thread may release it.
 *
 * <p>Every lease has a ttl: when it runs out the lock frees itself, even if the holder is still working.
 * Choose a ttl that outlasts the work, use {@link #autoExtend()} for work of unknown length, and pass
 * {@link #fence()} to downstream writes so that they can reject a holder whose lease ran out.
 *
 * <p>Options ({@link #autoExtend()}, {@link #purpose(String)}) configure this handle and return it; they are
 * set before the first acquisition attempt, and refused after it:
 * {@code registry.lock("imports:users", ttl).purpose("Imports#run").autoExtend().get(work)}.
 *
 * <p>Operations that reach the store throw {@link LockStoreUnavailableException} when it cannot be reached,
 * within the store's timeout.
 */
public interface Lock {

    /** @return the full name of the lock, store prefix included */
    String name();

    /** @return the name of the store this handle works on */
    String storeName();

    /** @return the lease duration each acquisition and {@link #extend()} asks for */
    Duration ttl();

    /** @return this handle's owner id: random, unique per handle, shared with handles restored from its token */
    String owner();

    /**
     * Tries once to acquire the lock.
     *
     * @return {@code true} if this handle now holds it; {@code false} if someone holds it (including this handle)
     */
    boolean get();

    /**
     * Tries to acquire the lock until it is acquired or {@code wait} runs out. A waiter wakes as soon as the store
     * can tell it the lock was released or expired, not on a fixed polling interval. {@link Duration#ZERO} makes
     * exactly one attempt.
     *
     * <p>Threads of one registry that find the same lock busy wait in line, in the order they found it busy: only
     * the first waits on the store and asks it again, so that the store sees one waiter per JVM, not one per thread,
     * and a release wakes one thread that is sure to try. As with a non-fair lock, a thread that comes along tries
     * once before it joins the line, and takes a lock that is free at that moment, even ahead of the line.
     *
     * @param wait the longest to wait
     * @return {@code true} if this handle now holds it
     * @throws InvalidLockDurationException if {@code wait} is {@code null}, negative or too large to compute with
     * @throws LockInterruptedException     if the thread is interrupted while waiting (its flag is set again)
     */
    boolean block(Duration wait);

    /**
     * Tries once to acquire the lock; if acquired, runs {@code work}, releases, and returns its result.
     * The lock is released even when the work throws; the work's exception is then rethrown unchanged (a
     * failure to release is added to it as suppressed). If the work completes but the release cannot reach the
     * store, the result is still returned and the lease ends at its ttl.
     *
     * @param work what to run while holding the lock
     * @param <T>  the result type
     * @param <E>  the exception the work may throw
     * @return the work's result, or a result with {@code acquired() == false} if the lock was busy
     * @throws E the work's own exception
     */
    <T, E extends Exception> LockResult<T> get(LockedWork<T, E> work) throws E;

    /**
     * {@link #get(LockedWork)} for work that returns nothing.
     *
     * @param work what to run while holding the lock
     * @param <E>  the exception the work may throw
     * @return {@code true} if the lock was acquired and the work ran
     * @throws E the work's own exception
     */
    <E extends Exception> boolean get(LockedTask<E> work) throws E;

    /**
     * Like {@link #get(LockedWork)}, waiting up to {@code wait} for the lock as {@link #block(Duration)} does.
     *
     * @param wait how long to wait for the lock
     * @param work what to run while holding the lock
     * @param <T>  the result type
     * @param <E>  the exception the work may throw
     * @return the work's result, or a result with {@code acquired() == false} if the lock stayed busy
     * @throws E the work's own exception
     */
    <T, E extends Exception> LockResult<T> block(Duration wait, LockedWork<T, E> work) throws E;

    /**
     * {@link #block(Duration, LockedWork)} for work that returns nothing.
     *
     * @param wait how long to wait for the lock
     * @param work what to run while holding the lock
     * @param <E>  the exception the work may throw
     * @return {@code true} if the lock was acquired and the work ran
     * @throws E the work's own exception
     */
    <E extends Exception> boolean block(Duration wait, LockedTask<E> work) throws E;

    /**
     * Releases the lock if this handle's owner holds it.
     *
     * @return {@code true} if released; {@code false} if the lease expired, was never acquired, was already
     *         released, or the lock belongs to someone else (then it is left alone)
     */
    boolean release();

    /**
     * Releases the lock whoever holds it. For operators freeing a stuck lock; the holder is not told.
     *
     * @return {@code true} if a live lock was released; {@code false} if it was free
     */
    boolean forceRelease();

    /**
     * Renews this handle's lease for its {@link #ttl()} from now.
     *
     * @return {@code true} if renewed; {@code false} if this handle no longer holds the lock
     */
    boolean extend();

    /**
     * Renews this handle's lease for {@code ttl} from now; later {@link #extend()} calls use the handle's own ttl.
     *
     * @param ttl the new lease duration
     * @return {@code true} if renewed; {@code false} if this handle no longer holds the lock
     * @throws InvalidLockDurationException if {@code ttl} is not at least 1 ms or too large
     */
    boolean extend(Duration ttl);

    /** @return {@code true} if anyone holds the lock now (asks the store) */
    boolean isLocked();

    /**
     * Whether this handle's lease has run out, by this JVM's monotonic clock measured from before the acquire
     * request (so it errs towards "expired"), or because an {@link #autoExtend()} renewal found it lost.
     *
     * @return {@code true} if this handle acquired the lock and its lease is over without a release;
     *         {@code false} while the lease lasts, and for a handle that holds nothing or released
     */
    boolean isExpired();

    /**
     * @return what is left of this handle's lease by the same estimate as {@link #isExpired()}; empty if it holds
     *         none
     */
    Optional<Duration> remaining();

    /**
     * @return the fencing token of this handle's current hold, strictly greater than that of every earlier
     *         acquisition of this name in this store; empty if it holds none
     */
    OptionalLong fence();

    /**
     * A string that identifies this handle (store, name, owner, ttl) so that another thread, process or server
     * can {@linkplain LockRegistry#restore(String) restore} it and release or extend the hold. Anyone with the
     * token can release the lock: treat it as a secret.
     *
     * @return the token
     */
    String token();

    /**
     * What the holder had left of its lease when this handle's last acquisition attempt found the lock busy, as
     * the store reported it: for a {@code Retry-After} answer or a log line, without listing the store. Cleared by
     * a successful acquisition.
     *
     * @return the holder's remaining lease at the last busy attempt; empty if the last attempt acquired, no
     *         attempt was made, or the store did not say
     */
    Optional<Duration> busyFor();

    /**
     * Makes this handle renew its lease in the background, every ttl/3, from each acquisition until it is
     * released (the callback forms release when the work ends). If a renewal finds the lease gone,
     * {@link #isExpired()} turns {@code true}, listeners hear {@link LockListener#lost(Lock)}, and
     * {@link #release()} returns {@code false}. A release that fails (the store is down) still stops the
     * renewal, so the lease then ends at its ttl.
     *
     * <p>An option of this handle, not a new handle: the owner stays the same. Set it before the first
     * acquisition attempt.
     *
     * @return this handle
     * @throws IllegalStateException if this handle has already tried to acquire, or was restored holding the lock
     */
    Lock autoExtend();

    /**
     * Records {@code purpose} with each hold of this handle, for operators. An option of this handle, not a new
     * handle: set it before the first acquisition attempt.
     *
     * @param purpose a short description, such as {@code Imports#run}; {@code null} for none
     * @return this handle
     * @throws IllegalStateException if this handle has already tried to acquire, or was restored holding the lock
     */
    Lock purpose(String purpose);

    /**
     * Keeps the lock held at least {@code atLeast} after each acquisition, measured on the store's clock: a
     * {@link #release()} before then shortens the lease to end at that floor instead of freeing the lock, and the
     * lock then expires by itself ({@link #forceRelease()} still frees it at once). For scheduled jobs that must
     * run once per tick across servers whose timers fire up to {@code atLeast} apart, however short the job.
     *
     * <p>An option of this handle: set it before the first acquisition attempt.
     *
     * @param atLeast how long each hold lasts at least; from {@link Duration#ZERO} (the default: a release frees
     *                at once) to the handle's {@link #ttl()}
     * @return this handle
     * @throws InvalidLockDurationException if {@code atLeast} is {@code null}, negative or longer than the ttl
     * @throws IllegalStateException        if this handle has already tried to acquire
     */
    Lock minHold(Duration atLeast);

    /** @return the minimum hold set by {@link #minHold(Duration)}; {@link Duration#ZERO} if none */
    Duration minHold();

    /**
     * What this handle does when it finds out, while work runs under it, that its lease ended: see
     * {@link OnLost}. The default is {@link OnLost#LOG}. An option of this handle: set it before the first
     * acquisition attempt.
     *
     * @param policy the policy
     * @return this handle
     * @throws IllegalStateException if this handle has already tried to acquire
     */
    Lock onLost(OnLost policy);

    /** @return this handle's {@link OnLost} policy */
    OnLost onLost();

    /**
     * Names the group this handle's holds are counted under in metrics and statistics, in place of the one
     * {@link LockNames#group(String)} derives from the name: a name template such as
     * {@code purchase:product:{productId}} keeps one series per kind of lock however many locks there are. An
     * option of this handle: set it before the first acquisition attempt.
     *
     * <p>The default implementation refuses, for {@code Lock} implementations written before groups existed.
     *
     * @param group a fixed, low-cardinality name; never a per-request value
     * @return this handle
     * @throws IllegalArgumentException if {@code group} is {@code null} or blank
     * @throws IllegalStateException    if this handle has already tried to acquire
     * @throws UnsupportedOperationException if this implementation has no groups
     */
    default Lock group(String group) {
        throw new UnsupportedOperationException("This Lock implementation ("
                + getClass().getName() + ") has no groups; it is counted under LockNames.group(name)");
    }

    /**
     * @return the group set by {@link #group(String)}; else {@link LockNames#group(String)} of the name without
     *         the store prefix. The default implementation applies that rule to the full name.
     */
    default String group() {
        return LockNames.group(name());
    }

    /**
     * Asks the store whether this handle's owner holds a live lease on the lock now: one round trip. A handle that
     * held the lock and learns here that it no longer does turns {@linkplain #isExpired() expired}.
     *
     * @return {@code true} if this handle (or one restored from its token) holds the lock
     * @throws LockStoreUnavailableException if the store cannot be reached
     */
    boolean isHeld();
}

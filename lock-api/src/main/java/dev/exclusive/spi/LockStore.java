package dev.exclusive.spi;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where locks live. One instance per configured store, shared by every handle and thread: implementations are
 * thread-safe.
 *
 * <p>The core ({@code LockRegistry}) validates every name, owner and duration before it calls a store, so
 * stores receive only valid names (see {@link dev.exclusive.LockNames}), non-blank owners and ttls of at least
 * one millisecond. Stores hold no per-handle state: every operation names its lock and owner.
 *
 * <p>Failures: an operation that cannot reach the backend, or gets no answer within the store's timeout,
 * throws {@link LockStoreUnavailableException}; stores never hang and never answer {@code false} for "could
 * not ask". The store's name is filled in by the core when the store leaves it out.
 *
 * <p>Each implementation states its algorithm in its class javadoc: how acquire, release and extend are
 * atomic, which clock decides expiry, how fences increase.
 */
public interface LockStore extends AutoCloseable {

    /**
     * One attempt to acquire {@code name} for {@code owner}: succeeds if nobody holds it or its lease has
     * expired, atomically with respect to every other operation on the name from any process.
     *
     * <p>Idempotent for the same owner: if {@code owner} itself already holds a live lease (a retry of an attempt
     * whose answer was lost, such as a client that resends a command after a read timeout), the attempt is
     * {@link Acquisition.Acquired} with <em>that</em> hold's fence and acquisition time, and its lease is renewed
     * to end {@code ttl} from now. It is never answered busy while the caller holds the lock. (Handles are still
     * not reentrant: {@code Lock.get()} on a handle that holds answers {@code false} without asking the store.)
     *
     * @param name   the full lock name
     * @param owner  the acquiring handle's owner id
     * @param holder who is acquiring, recorded for operators
     * @param ttl    how long the lease lasts unless extended or released; at least 1 ms
     * @return the lease granted, with a fence greater than every fence granted for {@code name} before (or, for
     *         the owner's own live hold, that hold's fence), or {@link Acquisition.Busy} if another owner holds it
     * @throws LockStoreUnavailableException if the backend cannot be reached; the lock is then not held by
     *                                       {@code owner}, or will expire at its ttl
     */
    Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl);

    /**
     * Releases {@code name} if {@code owner} holds a live lease on it, and wakes its waiters.
     *
     * @param name  the full lock name
     * @param owner the owner id of the handle releasing it
     * @return {@code true} if this call released it; {@code false} if it was free, expired, or held by
     *         another owner (then it is left as it is)
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    boolean release(String name, String owner);

    /**
     * Releases {@code name} if {@code owner} holds a live lease on it, but not before {@code minHold} has passed
     * since that hold was acquired (by the store's clock, from the acquisition time it recorded): if it has, this
     * is {@link #release(String, String)}; if not, the lease is shortened to end at {@code acquiredAt + minHold}
     * (never lengthened: a lease that already ends before that is left alone), the owner and fence stay, and the
     * lock then expires by itself. Waiters are not woken; they wake at the expiry.
     *
     * <p>The default asks {@link #inspect(String)} and then calls {@link #release(String, String)} or
     * {@link #extend(String, String, Duration)}, which is owner-checked but not atomic: the floor is computed from
     * the store's own times, but a store should implement it in one atomic step, as the built-in stores do.
     *
     * @param name    the full lock name
     * @param owner   the releasing handle's owner id
     * @param minHold how long after its acquisition the hold must last at least; not negative
     * @return {@code true} if this call released the lock or left it to end at the floor; {@code false} if it
     *         was free, expired, or held by another owner (then it is left as it is)
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    default boolean release(String name, String owner, Duration minHold) {
        Optional<LockEntry> held = inspect(name).filter(entry -> entry.owner().equals(owner));
        if (held.isEmpty()) {
            return false;
        }
        LockEntry entry = held.get();
        Instant storeNow = entry.expiresAt().minus(entry.remaining());
        Duration untilFloor = Duration.between(storeNow, entry.acquiredAt().plus(minHold));
        if (untilFloor.compareTo(Duration.ofMillis(1)) < 0) {
            return release(name, owner);
        }
        return untilFloor.compareTo(entry.remaining()) >= 0 || extend(name, owner, untilFloor);
    }

    /**
     * Releases {@code name} whoever holds it, and wakes its waiters.
     *
     * @param name the full lock name
     * @return {@code true} if a live lease was removed; {@code false} if it was free or expired
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    boolean forceRelease(String name);

    /**
     * Releases {@code name} if {@code owner} holds a live lease on it that was granted {@code fence}, and wakes its
     * waiters: an operator's force-release of the hold a listing showed. A later hold is left alone, even one of the
     * same owner (the handle acquired again, or a handle restored from its token did).
     *
     * <p>The default asks {@link #inspect(String)} and then calls {@link #release(String, String)}, which is
     * owner-checked but not atomic: a hold the owner took again between the two calls would be released. A store
     * should implement it in one atomic step, as the built-in stores do.
     *
     * @param name  the full lock name
     * @param owner the owner id of the listed hold
     * @param fence the fence of the listed hold
     * @return {@code true} if this call released that hold; {@code false} if the lock was free, expired, held by
     *         another owner, or held by the same owner with another fence (then it is left as it is)
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    default boolean releaseHold(String name, String owner, long fence) {
        return inspect(name)
                        .filter(entry -> entry.owner().equals(owner) && entry.fence() == fence)
                        .isPresent()
                && release(name, owner);
    }

    /**
     * Sets the lease of {@code owner} on {@code name} to end {@code ttl} from now, if {@code owner} still holds
     * a live lease. The fence and acquisition time stay as they are.
     *
     * @param name  the full lock name
     * @param owner the owner id of the handle extending it
     * @param ttl   the new lease, from now
     * @return {@code true} if extended; {@code false} if the lease expired or another owner holds the lock
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    boolean extend(String name, String owner, Duration ttl);

    /**
     * @param name the full lock name
     * @return the live lock named {@code name}, or empty if it is free or expired
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    Optional<LockEntry> inspect(String name);

    /**
     * Lists live locks whose full name starts with {@code prefix} (taken literally: no pattern characters),
     * in no particular order.
     *
     * @param prefix a name prefix, possibly empty
     * @param limit  the most entries to return; positive
     * @return at most {@code limit} live entries
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    List<LockEntry> list(String prefix, int limit);

    /**
     * How waiters pace their re-checks in this store. The default is a backoff from 5 ms to 200 ms.
     *
     * @return this store's policy
     */
    default WaitPolicy waitPolicy() {
        return WaitPolicy.backoff(Duration.ofMillis(5), Duration.ofMillis(200));
    }

    /**
     * Blocks until {@code name} may have become free, or {@code maxWait} passes. Stores wake waiters on release
     * (a local signal, a pub/sub message); spurious and early returns are allowed, since the caller tries
     * again. The default just sleeps for {@code maxWait}.
     *
     * @param name    the full lock name
     * @param maxWait the longest to block; positive
     * @throws InterruptedException if the thread is interrupted while blocked
     */
    default void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        Thread.sleep(Math.max(1, maxWait.toMillis()));
    }

    /**
     * Appends {@code record} to this store's audit trail, which every store instance on the same backend reads
     * (another server, or this one after a restart). The store stamps the record with its own clock where it has
     * one ({@link AuditRecord#at(Instant)}) and keeps the trail within its {@link AuditLimits}, dropping the oldest
     * records. Appends from several instances and processes at once are all kept (within the limits).
     *
     * <p>The default keeps nothing, so a store written before audit trails existed still compiles and works; the
     * console then shows it no history. Every built-in store keeps one.
     *
     * @param record what happened
     * @throws LockStoreUnavailableException if the backend cannot be reached; the registry logs it and carries on
     *                                       (an audit write never fails the operation it records)
     */
    default void audit(AuditRecord record) {}

    /**
     * Reads this store's audit trail, newest first (by the order of the appends, which is the order of their times
     * for a store with its own clock), within its {@link AuditLimits}.
     *
     * @param limit the most records to return; positive
     * @return at most {@code limit} records, newest first; empty by default
     * @throws LockStoreUnavailableException if the backend cannot be reached
     */
    default List<AuditRecord> auditTrail(int limit) {
        return List.of();
    }

    /**
     * Checks that the backend answers, for health checks.
     *
     * @throws LockStoreUnavailableException if it does not
     */
    default void ping() {
        inspect("exclusive:ping");
    }

    /** Releases the store's connections and threads; locks it holds stay until they expire. Idempotent. */
    @Override
    void close();
}

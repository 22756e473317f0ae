package dev.exclusive.internal;

import dev.exclusive.AuditRecord;
import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInterruptedException;
import dev.exclusive.LockListener.Operation;
import dev.exclusive.LockLostException;
import dev.exclusive.LockResult;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.LockedTask;
import dev.exclusive.LockedWork;
import dev.exclusive.OnLost;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.WaitPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one implementation of {@link Lock}. Its state is the current hold, replaced atomically; the lease end is
 * estimated on this JVM's monotonic clock from the instant before the acquire request left, so the estimate
 * ends no later than the store's own expiry (minus clock drift over one ttl).
 */
public final class DefaultLock implements Lock {

    private static final long MIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final RegistryContext context;
    private final StoreBinding binding;
    private final String name;
    private final Duration ttl;
    private final String owner;
    private volatile String purpose;
    /** Set by {@link #group(String)}; {@code null}: derived from the name when first asked. */
    private volatile String group;

    private volatile boolean autoExtend;
    private volatile Duration minHold = Duration.ZERO;
    private volatile OnLost onLost = OnLost.LOG;
    /** Set by the first acquisition attempt (or an adopted hold): options are fixed from then on. */
    private volatile boolean started;

    private final AtomicReference<Hold> hold = new AtomicReference<>();
    /** What the holder had left when this handle's last attempt found the lock busy; {@code null}: unknown. */
    private volatile Duration busyFor;
    /** The holder this handle last recorded, reused while the same thread acquires. */
    private volatile ThreadHolder lastHolder;

    private record ThreadHolder(Thread thread, LockHolder holder) {}

    /** One hold of this handle: its fence, holder, when it began, lease estimate, and renewal task. */
    private static final class Hold {
        final long fence;
        final LockHolder holder;
        /** {@link System#nanoTime()} just before the acquisition request left (or when the hold was adopted). */
        final long sinceNanos;

        volatile long deadlineNanos;
        volatile boolean lost;
        /** Set when the loss went to the store's audit trail, so the release that follows does not add it again. */
        volatile boolean lossAudited;
        /** Set before the release reaches the store: a renewal that then finds the lease gone is not a loss. */
        volatile boolean releasing;

        volatile ScheduledFuture<?> renewal;
        /** The thread running work under this hold, for {@link OnLost#INTERRUPT}; {@code null} between works. */
        volatile Thread worker;

        Hold(long fence, LockHolder holder, long sinceNanos, long deadlineNanos) {
            this.fence = fence;
            this.holder = holder;
            this.sinceNanos = sinceNanos;
            this.deadlineNanos = deadlineNanos;
        }

        boolean expired() {
            return lost || System.nanoTime() - deadlineNanos >= 0;
        }

        void stopRenewal() {
            ScheduledFuture<?> task = renewal;
            if (task != null) {
                task.cancel(false);
            }
        }
    }

    public DefaultLock(RegistryContext context, StoreBinding binding, String name, Duration ttl, String owner) {
        this.context = context;
        this.binding = binding;
        this.name = name;
        this.ttl = ttl;
        this.owner = owner;
        this.purpose = "";
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String storeName() {
        return binding.name();
    }

    @Override
    public Duration ttl() {
        return ttl;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public boolean get() {
        long start = System.nanoTime();
        boolean acquired = attempt(start, start).acquired();
        if (context.hasListeners()) {
            Duration waited = since(start);
            if (acquired) {
                context.tell(listener -> listener.acquired(this, waited));
            } else {
                context.tell(listener -> listener.busy(this, waited));
            }
        }
        return acquired;
    }

    @Override
    public boolean block(Duration wait) {
        long start = System.nanoTime();
        long waitNanos = Durations.requireWaitNanos(wait, name, binding.name());
        long deadline = start + waitNanos;
        WaitPolicy policy = binding.store().waitPolicy();
        LocalQueue queue = null;
        Duration holderRemaining = null;
        LocalQueue.Ticket ticket = null;
        Duration acquiredFor = null;
        try {
            for (int attempt = 0; ; attempt++) {
                Acquisition outcome = attempt(start, attempt == 0 ? start : System.nanoTime());
                if (outcome.acquired()) {
                    acquiredFor = ttl;
                    if (context.hasListeners()) {
                        Duration waited = since(start);
                        context.tell(listener -> listener.acquired(this, waited));
                    }
                    return true;
                }
                holderRemaining = ((Acquisition.Busy) outcome).remaining();
                if (System.nanoTime() - deadline >= 0) {
                    return gaveUp(start, waitNanos);
                }
                if (attempt == 0 && context.hasListeners()) {
                    // Before the interrupt check, so that an interrupted attempt has always been told as waiting.
                    context.tell(listener -> listener.waiting(this));
                }
                if (Thread.interrupted()) {
                    // Checked after an attempt and before waiting, so a wake-up this waiter received was used.
                    throw interrupted(start, new InterruptedException());
                }
                if (ticket == null) {
                    queue = context.queue(binding);
                    ticket = queue.join(name);
                    if (!ticket.head) {
                        try {
                            if (!queue.awaitHead(ticket, deadline)) {
                                return gaveUp(start, waitNanos);
                            }
                        } catch (InterruptedException e) {
                            throw interrupted(start, e);
                        }
                        // The head before took the lock: it is busy for at most that hold's ttl, so wait for its
                        // release without asking. Else (it gave up) try again at once.
                        holderRemaining = ticket.heldFor;
                        if (holderRemaining == null) {
                            continue;
                        }
                    }
                }
                long left = deadline - System.nanoTime();
                long pause = Math.min(left, pause(policy, attempt, holderRemaining));
                try {
                    binding.store().awaitRelease(name, Duration.ofNanos(Math.max(pause, MIN_PAUSE_NANOS)));
                } catch (InterruptedException e) {
                    throw interrupted(start, e);
                }
            }
        } finally {
            if (ticket != null) {
                queue.leave(ticket, acquiredFor);
            }
        }
    }

    /** Tells listeners that a {@code block} ends without the lock, and answers {@code false}. */
    private boolean gaveUp(long start, long waitNanos) {
        if (context.hasListeners()) {
            Duration waited = since(start);
            if (waitNanos == 0) {
                context.tell(listener -> listener.busy(this, waited));
            } else {
                context.tell(listener -> listener.timedOut(this, waited));
            }
        }
        return false;
    }

    /** Sets the interrupt flag again, tells listeners, and returns the exception for the waiter. */
    private LockInterruptedException interrupted(long startNanos, InterruptedException cause) {
        Thread.currentThread().interrupt();
        if (context.hasListeners()) {
            Duration waited = since(startNanos);
            context.tell(listener -> listener.interrupted(this, waited));
        }
        return new LockInterruptedException(name, binding.name(), cause);
    }

    /**
     * How long to wait before the next attempt: the store's backoff step for this attempt, drawn between half
     * and all of it, and never past the holder's expiry.
     */
    private static long pause(WaitPolicy policy, int attempt, Duration holderRemaining) {
        long pause = Long.MAX_VALUE;
        if (!policy.isSignalled()) {
            long min = policy.minPause().toNanos();
            long step = Math.min(policy.maxPause().toNanos(), min << Math.min(attempt, 20));
            pause = step / 2 + ThreadLocalRandom.current().nextLong(step / 2 + 1);
        }
        if (holderRemaining != null) {
            pause = Math.min(pause, holderRemaining.toNanos() + MIN_PAUSE_NANOS);
        }
        return pause;
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Tells listeners that a store call of this handle failed, and returns the exception for the caller. */
    private LockStoreUnavailableException failed(
            Operation operation, long startNanos, LockStoreUnavailableException error) {
        LockStoreUnavailableException named = binding.unavailable(name, error);
        if (context.hasListeners()) {
            Duration elapsed = since(startNanos);
            context.tell(listener -> listener.failed(this, operation, elapsed, named));
        }
        return named;
    }

    /**
     * @param start  when the caller's {@code get} or {@code block} began, for a failure's elapsed time
     * @param before an instant before this attempt: the lease estimate and the hold's start count from it (the
     *               clock is read as few times as possible: each read costs tens of nanoseconds on some machines)
     */
    private Acquisition attempt(long start, long before) {
        started = true;
        Hold held = hold.get();
        if (held != null && !held.expired()) {
            // Not reentrant: the store would answer a retry by the same owner as acquired.
            busyFor = Duration.ofNanos(Math.max(1, held.deadlineNanos - System.nanoTime()));
            return new Acquisition.Busy(busyFor);
        }
        LockHolder holder = holder();
        Acquisition outcome;
        try {
            outcome = binding.store().tryAcquire(name, owner, holder, ttl);
        } catch (LockStoreUnavailableException e) {
            throw failed(Operation.ACQUIRE, start, e);
        }
        if (outcome instanceof Acquisition.Busy busy) {
            busyFor = busy.remaining();
        } else if (outcome instanceof Acquisition.Acquired acquired) {
            busyFor = null;
            Hold current = new Hold(acquired.fence(), holder, before, before + ttl.toNanos());
            Hold previous = hold.getAndSet(current);
            if (previous != null) { // ran out without a release that freed it: it ends here, told once
                previous.stopRenewal();
                if (context.hasListeners()) {
                    Duration ran = Duration.ofNanos(before - previous.sinceNanos);
                    context.tell(listener -> listener.expired(this, ran));
                }
            }
            if (autoExtend) {
                scheduleRenewal(current);
            }
        }
        return outcome;
    }

    private LockHolder holder() {
        Thread thread = Thread.currentThread();
        ThreadHolder last = lastHolder;
        if (last == null || last.thread != thread) {
            last = new ThreadHolder(thread, new LockHolder(context.instanceName(), thread.getName(), purpose));
            lastHolder = last;
        }
        return last.holder;
    }

    private void scheduleRenewal(Hold current) {
        long period = Math.max(1, ttl.toNanos() / 3);
        current.renewal = context.renewals(binding)
                .scheduleWithFixedDelay(() -> renew(current), period, period, TimeUnit.NANOSECONDS);
    }

    /** One background renewal; a store outage is retried at the next tick until the lease estimate ends. */
    private void renew(Hold current) {
        if (hold.get() != current || current.releasing) {
            current.stopRenewal();
            return;
        }
        long before = System.nanoTime();
        try {
            if (binding.store().extend(name, owner, ttl)) {
                current.deadlineNanos = before + ttl.toNanos();
                return;
            }
        } catch (RuntimeException e) {
            if (current.releasing) {
                return;
            }
            if (context.hasListeners()) {
                context.tell(listener -> listener.renewalFailed(this, e));
            }
            if (!current.expired()) {
                RegistryContext.warn(
                        "Renewal of lock '" + name + "' in store '" + binding.name()
                                + "' failed; retrying while the lease lasts",
                        e);
                return;
            }
        }
        if (current.releasing || hold.get() != current) {
            // The release ran while this renewal was in flight: the lease ended because it was released.
            current.stopRenewal();
            return;
        }
        lost(current);
    }

    /** A loss found while the work may still run: log, tell listeners, and apply the handle's policy. */
    private void lost(Hold current) {
        current.lost = true;
        current.stopRenewal();
        RegistryContext.logLost(this);
        current.lossAudited = true;
        audit(current, "gone while auto-extending: ran out or force-released");
        if (context.hasListeners()) {
            context.tell(listener -> listener.lost(this));
        }
        if (onLost == OnLost.INTERRUPT) {
            synchronized (current) {
                // Under the hold's monitor, as exitWork clears the worker: no interrupt lands on a thread that
                // has left the work (a pooled thread that moved on to something else).
                Thread worker = current.worker;
                if (worker != null) {
                    worker.interrupt();
                }
            }
        }
    }

    @Override
    public <T, E extends Exception> LockResult<T> get(LockedWork<T, E> work) throws E {
        return get() ? runHolding(work) : LockResult.notAcquired();
    }

    @Override
    public <E extends Exception> boolean get(LockedTask<E> work) throws E {
        return get(asWork(work)).acquired();
    }

    @Override
    public <T, E extends Exception> LockResult<T> block(Duration wait, LockedWork<T, E> work) throws E {
        return block(wait) ? runHolding(work) : LockResult.notAcquired();
    }

    @Override
    public <E extends Exception> boolean block(Duration wait, LockedTask<E> work) throws E {
        return block(wait, asWork(work)).acquired();
    }

    private static <E extends Exception> LockedWork<Void, E> asWork(LockedTask<E> task) {
        return () -> {
            task.run();
            return null;
        };
    }

    private <T, E extends Exception> LockResult<T> runHolding(LockedWork<T, E> work) throws E {
        T value;
        enterWork();
        try {
            value = work.run();
        } catch (Throwable failure) {
            exitWork();
            try {
                release();
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
                abandon();
            }
            throw failure;
        }
        exitWork();
        if (onLost == OnLost.ROLLBACK && !heldThroughout()) {
            LockLostException lost = new LockLostException(
                    "Lock '" + name + "' in store '" + binding.name() + "' was lost while its work ran (onLost"
                            + " ROLLBACK): the work completed, but not under the lock for all of its time",
                    name,
                    binding.name(),
                    null);
            try {
                release();
            } catch (RuntimeException releaseFailure) {
                lost.addSuppressed(releaseFailure); // the loss is what the caller must hear
                abandon();
            }
            throw lost;
        }
        try {
            release();
        } catch (RuntimeException releaseFailure) {
            RegistryContext.warn(
                    "Lock '" + name + "' in store '" + binding.name() + "': the work completed but the"
                            + " release failed; the lock frees itself when its lease ends in at most " + ttl,
                    releaseFailure);
            abandon();
        }
        return LockResult.of(value);
    }

    /**
     * Marks the start of work under this handle's current hold on this thread: {@code Locks.current()} sees the
     * handle, and {@link OnLost#INTERRUPT} interrupts this thread. Public for lock-cdi's interceptor.
     */
    public void enterWork() {
        Hold current = hold.get();
        if (current != null) {
            current.worker = Thread.currentThread();
        }
        CurrentLocks.enter(this);
    }

    /** Marks the end of the work {@link #enterWork()} began, on the same thread. */
    public void exitWork() {
        Hold current = hold.get();
        if (current != null) {
            synchronized (current) {
                if (current.worker == Thread.currentThread()) {
                    current.worker = null;
                }
            }
        }
        CurrentLocks.exit(this);
    }

    /**
     * {@link #stillHeld()} for {@link OnLost#ROLLBACK} after the work, as lock-cdi decides it: a hold whose lease ran
     * out by this handle's own clock (which never outlasts the store's) is gone without a store call; a check the
     * store cannot answer leaves that estimate to decide, since an outage alone does not undo work whose lease has
     * not run out. The release follows either way, so that the hold (and an auto-extend's renewal) never outlives
     * the work.
     */
    private boolean heldThroughout() {
        if (isExpired()) {
            return false;
        }
        try {
            return stillHeld();
        } catch (LockStoreUnavailableException unknown) {
            RegistryContext.warn(
                    "Lock '" + name + "' in store '" + binding.name() + "': could not check the hold (onLost"
                            + " ROLLBACK); its lease has "
                            + remaining().map(Duration::toString).orElse("PT0S")
                            + " left by this JVM's clock, so the result stands",
                    unknown);
            return true;
        }
    }

    /** Whether the hold survived the work: known lost without a store call, else one check with the store. */
    private boolean stillHeld() {
        Hold current = hold.get();
        return current != null && !current.lost && isHeld();
    }

    @Override
    public boolean isHeld() {
        Hold current = hold.get();
        boolean held = binding.call(name, () -> binding.store().inspect(name))
                .filter(live -> live.owner().equals(owner))
                .isPresent();
        if (!held && current != null && hold.get() == current && !current.releasing) {
            current.lost = true;
            current.stopRenewal();
        }
        return held;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Renewal stops before the store is asked, so that no path out of here (a store that is down included)
     * leaves the lease renewed in the background; a hold whose release failed stays on the handle, so the
     * release can be retried, and otherwise ends at its ttl.
     */
    @Override
    public boolean release() {
        Hold current = hold.get();
        if (current == null) {
            return false;
        }
        current.releasing = true;
        current.stopRenewal();
        Duration floor = minHold;
        // the hold's end, and the start of a failure's elapsed time: read only for listeners
        long end = context.hasListeners() ? System.nanoTime() : 0L;
        boolean released;
        try {
            released = floor.isZero()
                    ? binding.store().release(name, owner)
                    : binding.store().release(name, owner, floor);
        } catch (LockStoreUnavailableException e) {
            throw failed(Operation.RELEASE, end, e);
        }
        // Told once per hold: a second release of the same hold finds it gone from the handle and says nothing.
        if (hold.compareAndSet(current, null)) {
            if (!released && !current.lossAudited) {
                audit(current, "gone before its release: expired or force-released");
            }
            if (context.hasListeners()) {
                Duration held = Duration.ofNanos(end - current.sinceNanos);
                if (released) {
                    context.tell(listener -> listener.released(this, held));
                } else {
                    context.tell(listener -> listener.expired(this, held));
                }
            }
        }
        return released;
    }

    /**
     * Gives up the hold after its release failed, when nobody will send the release again (the work that held it
     * is over): the handle forgets it, listeners hear that it ended ({@link dev.exclusive.LockListener#expired}), and the store
     * frees it when its lease ends. Nothing if the handle holds nothing. Public for lock-cdi's interceptor.
     */
    public void abandon() {
        Hold current = hold.get();
        if (current != null && hold.compareAndSet(current, null)) {
            current.stopRenewal();
            if (context.hasListeners()) {
                Duration held = since(current.sinceNanos);
                context.tell(listener -> listener.expired(this, held));
            }
        }
    }

    /** {@inheritDoc} The store's audit trail records it with the registry's instance name as the actor. */
    @Override
    public boolean forceRelease() {
        return forceRelease(context.instanceName());
    }

    /**
     * {@link #forceRelease()} on behalf of {@code actor}, who is named in the store's audit trail. The hold the
     * record names is the one the store showed just before the release (read first, in a call of its own).
     *
     * @param actor who asks: an operator's principal name, or the instance
     * @return whether a live lock was freed
     */
    public boolean forceRelease(String actor) {
        Optional<LockEntry> seen = binding.call(name, () -> binding.store().inspect(name));
        boolean released = binding.call(name, () -> binding.store().forceRelease(name));
        if (context.hasListeners()) {
            String counted = group();
            context.tell(listener -> listener.forceReleased(binding.name(), name, counted, released));
        }
        LockEntry entry = seen.orElse(null);
        context.audit(
                binding,
                forced(
                        name,
                        entry == null ? null : entry.owner(),
                        entry == null ? 0 : entry.fence(),
                        entry == null ? null : entry.holder(),
                        actor,
                        released
                                ? "released: the holder's lease ended here"
                                : "nothing to release: the lock was free or its lease had ended"));
        return released;
    }

    /** The record of a force-release; the hold parts may be {@code null}/0 when no hold was seen. */
    public static AuditRecord forced(
            String name, String owner, long fence, LockHolder holder, String actor, String detail) {
        return new AuditRecord(
                Instant.now(), AuditRecord.Kind.FORCE_RELEASED, name, owner, fence, holder, actor, detail);
    }

    /** Records the loss of one of this handle's holds, with the instance as the actor. */
    private void audit(Hold lostHold, String detail) {
        context.audit(
                binding,
                new AuditRecord(
                        Instant.now(),
                        AuditRecord.Kind.LEASE_LOST,
                        name,
                        owner,
                        lostHold.fence,
                        lostHold.holder,
                        context.instanceName(),
                        detail));
    }

    @Override
    public boolean extend() {
        return extendBy(ttl);
    }

    @Override
    public boolean extend(Duration newTtl) {
        return extendBy(Durations.requireTtl(newTtl, name, binding.name()));
    }

    private boolean extendBy(Duration leaseTtl) {
        Hold current = hold.get();
        if (current == null) {
            return false;
        }
        long before = System.nanoTime();
        boolean extended;
        try {
            extended = binding.store().extend(name, owner, leaseTtl);
        } catch (LockStoreUnavailableException e) {
            throw failed(Operation.EXTEND, before, e);
        }
        if (extended) {
            current.deadlineNanos = before + leaseTtl.toNanos();
        } else {
            current.lost = true;
            current.stopRenewal();
        }
        return extended;
    }

    @Override
    public boolean isLocked() {
        return binding.call(name, () -> binding.store().inspect(name)).isPresent();
    }

    @Override
    public boolean isExpired() {
        Hold current = hold.get();
        return current != null && current.expired();
    }

    @Override
    public Optional<Duration> remaining() {
        Hold current = hold.get();
        if (current == null || current.expired()) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(current.deadlineNanos - System.nanoTime()));
    }

    @Override
    public OptionalLong fence() {
        Hold current = hold.get();
        return current == null || current.expired() ? OptionalLong.empty() : OptionalLong.of(current.fence);
    }

    @Override
    public String token() {
        return Tokens.encode(binding.name(), name, owner, ttl);
    }

    @Override
    public Optional<Duration> busyFor() {
        return Optional.ofNullable(busyFor);
    }

    @Override
    public Lock autoExtend() {
        requireNotStarted("autoExtend()");
        autoExtend = true;
        return this;
    }

    @Override
    public Lock purpose(String newPurpose) {
        requireNotStarted("purpose(...)");
        purpose = newPurpose == null ? "" : newPurpose;
        lastHolder = null;
        return this;
    }

    @Override
    public Lock minHold(Duration atLeast) {
        requireNotStarted("minHold(...)");
        minHold = Durations.requireMinHold(atLeast, ttl, name, binding.name());
        return this;
    }

    @Override
    public Duration minHold() {
        return minHold;
    }

    @Override
    public Lock onLost(OnLost policy) {
        requireNotStarted("onLost(...)");
        onLost = java.util.Objects.requireNonNull(policy, "policy");
        return this;
    }

    @Override
    public OnLost onLost() {
        return onLost;
    }

    @Override
    public Lock group(String newGroup) {
        requireNotStarted("group(...)");
        if (newGroup == null || newGroup.isBlank()) {
            throw new IllegalArgumentException("Lock '" + name + "' in store '" + binding.name()
                    + "': a group must be a non-blank name such as a name template, got '" + newGroup + "'");
        }
        group = newGroup;
        return this;
    }

    @Override
    public String group() {
        String named = group;
        if (named == null) {
            named = binding.group(name);
            group = named;
        }
        return named;
    }

    private void requireNotStarted(String option) {
        if (started) {
            throw new IllegalStateException("Lock '" + name + "' in store '" + binding.name() + "': set " + option
                    + " before the handle's first acquisition; this handle has already tried to acquire or holds"
                    + " the lock. Configure a new handle from LockRegistry.lock(...) instead");
        }
    }

    /**
     * Takes over the hold of this handle's owner, if the store says the owner holds the lock: for handles
     * restored from a token.
     */
    public DefaultLock adoptHold() {
        Optional<LockEntry> entry = binding.call(name, () -> binding.store().inspect(name));
        long now = System.nanoTime();
        entry.filter(live -> live.owner().equals(owner)).ifPresent(live -> {
            started = true;
            hold.set(new Hold(
                    live.fence(), live.holder(), now, now + live.remaining().toNanos()));
        });
        return this;
    }

    @Override
    public String toString() {
        Hold current = hold.get();
        return "Lock[" + binding.name() + ":" + name + ", ttl=" + ttl + ", "
                + (current == null ? "not held" : current.expired() ? "expired" : "held, fence " + current.fence)
                + "]";
    }
}

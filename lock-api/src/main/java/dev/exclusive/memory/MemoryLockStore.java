package dev.exclusive.memory;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Locks shared by the threads of one JVM.
 *
 * <p>Algorithm. Leases live in a {@link ConcurrentHashMap} from name to an immutable entry (owner, holder,
 * fence, expiry on the monotonic clock). Every state change is one atomic map operation on the name's key
 * ({@code compute}, or a conditional {@code remove}), which the map runs atomically with respect to every other
 * change of that key:
 * <ol>
 * <li>acquire: if there is no entry, or its expiry has passed, put a new entry with the next fence; if the
 * entry is the caller's own live lease (a retried attempt), renew it and answer acquired with its fence; else keep
 * the entry and answer busy with its remaining time;</li>
 * <li>release: if the entry is live and its owner matches, remove exactly that entry ({@code remove(name,
 * entry)}, by identity, so a lease granted to someone else in between is never touched); then signal the
 * name's waiters;</li>
 * <li>extend: if the entry is live and its owner matches, replace it with one that expires {@code ttl} from now;
 * </li>
 * <li>release with a minimum hold: in one {@code computeIfPresent}, if the owner's entry is live and its
 * acquisition plus the minimum has passed, remove it and signal; if not, replace it with one that expires at that
 * floor (never later than it already did), and signal, so that a waiter reads the new expiry;</li>
 * <li>force-release: remove a live entry whoever owns it; then signal.</li>
 * </ol>
 * Fences come from one counter per store, so they increase across every name, and therefore per name, also
 * after release and expiry. Released entries are removed at once; expired ones are removed when their name is
 * next touched, and by a sweep that runs every 4,096 fences once the map holds more than 1,024 entries,
 * so a million one-off names leave no growth. Waiters are woken by a local signal on release and sleep until the
 * holder's expiry otherwise: no polling. Expiry follows the JVM's monotonic clock ({@link System#nanoTime()}),
 * so wall-clock changes do not move it; wall-clock times in {@link LockEntry} are derived for display.
 *
 * <p>Audit trail: a ring of the last {@link AuditLimits#maxRecords()} records in this instance, stamped with the
 * wall clock; records older than {@link AuditLimits#maxAge()} are dropped when a record is appended or read. It
 * lives and dies with the instance, like the locks.
 */
public final class MemoryLockStore implements LockStore {

    private static final int SWEEP_EVERY = 4096;
    private static final int SWEEP_ABOVE = 1024;

    private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();
    private final LocalSignals signals = new LocalSignals();
    private final AtomicLong fences = new AtomicLong();
    private final LongSupplier nanoClock;
    /** Wall-clock nanoseconds minus monotonic nanoseconds at construction: display times without a clock read. */
    private final long wallOffsetNanos;

    private final AuditLimits auditLimits;
    /** Newest first; guarded by itself. */
    private final ArrayDeque<AuditRecord> audit = new ArrayDeque<>();

    /**
     * One lease; immutable, replaced on every change. Compared by identity, so that a conditional
     * {@code remove(name, entry)} removes exactly the lease that was checked.
     */
    private static final class Entry {
        final String owner;
        final LockHolder holder;
        final long fence;
        final long acquiredNanos;
        final long expiresNanos;

        Entry(String owner, LockHolder holder, long fence, long acquiredNanos, long expiresNanos) {
            this.owner = owner;
            this.holder = holder;
            this.fence = fence;
            this.acquiredNanos = acquiredNanos;
            this.expiresNanos = expiresNanos;
        }

        boolean liveAt(long now) {
            return expiresNanos - now > 0;
        }
    }

    /** A store on the JVM's monotonic clock. */
    public MemoryLockStore() {
        this(System::nanoTime);
    }

    /**
     * A store on a given monotonic clock, for tests that move time by hand.
     *
     * @param nanoClock nanoseconds that never go back, like {@link System#nanoTime()}
     */
    public MemoryLockStore(LongSupplier nanoClock) {
        this(nanoClock, AuditLimits.DEFAULT);
    }

    /**
     * A store on a given monotonic clock that keeps its audit trail within {@code auditLimits}.
     *
     * @param nanoClock   nanoseconds that never go back, like {@link System#nanoTime()}
     * @param auditLimits how many and how old audit records it keeps
     */
    public MemoryLockStore(LongSupplier nanoClock, AuditLimits auditLimits) {
        this.nanoClock = nanoClock;
        this.auditLimits = java.util.Objects.requireNonNull(auditLimits, "auditLimits");
        Instant wall = Instant.now();
        this.wallOffsetNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - nanoClock.getAsLong();
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        long now = nanoClock.getAsLong();
        Entry held = locks.get(name);
        if (held != null && held.liveAt(now) && !held.owner.equals(owner)) {
            return new Acquisition.Busy(Duration.ofNanos(held.expiresNanos - now));
        }
        long ttlNanos = ttl.toNanos();
        Entry[] previous = new Entry[1];
        Entry current = locks.compute(name, (key, existing) -> {
            if (existing != null && existing.liveAt(now)) {
                previous[0] = existing;
                return existing.owner.equals(owner)
                        ? new Entry(owner, existing.holder, existing.fence, existing.acquiredNanos, now + ttlNanos)
                        : existing;
            }
            return new Entry(owner, holder, fences.incrementAndGet(), now, now + ttlNanos);
        });
        if (previous[0] != null && !previous[0].owner.equals(owner)) {
            return new Acquisition.Busy(Duration.ofNanos(current.expiresNanos - now));
        }
        if (current.fence % SWEEP_EVERY == 0 && locks.size() > SWEEP_ABOVE) {
            sweep(now);
        }
        return new Acquisition.Acquired(current.fence, wallClock(now), wallClock(current.expiresNanos));
    }

    @Override
    public boolean release(String name, String owner) {
        return release(name, owner, locks.get(name));
    }

    /** Removes {@code existing}, the entry read for {@code name}, if it is {@code owner}'s and live. */
    private boolean release(String name, String owner, Entry existing) {
        long now = nanoClock.getAsLong();
        if (existing == null || !existing.owner.equals(owner)) {
            return false;
        }
        if (!existing.liveAt(now)) {
            locks.remove(name, existing);
            return false;
        }
        boolean released = locks.remove(name, existing);
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean releaseHold(String name, String owner, long fence) {
        Entry existing = locks.get(name);
        return existing != null && existing.fence == fence && release(name, owner, existing);
    }

    /** One atomic {@code computeIfPresent}: free the entry, or shorten it to the floor, or leave another's. */
    @Override
    public boolean release(String name, String owner, Duration minHold) {
        long now = nanoClock.getAsLong();
        long minHoldNanos = minHold.toNanos();
        boolean[] outcome = new boolean[2]; // [0] released or floored, [1] freed now
        locks.computeIfPresent(name, (key, existing) -> {
            if (!existing.liveAt(now)) {
                return null;
            }
            if (!existing.owner.equals(owner)) {
                return existing;
            }
            outcome[0] = true;
            long floor = existing.acquiredNanos + minHoldNanos;
            if (floor - now <= 0) {
                outcome[1] = true;
                return null;
            }
            return floor - existing.expiresNanos >= 0
                    ? existing
                    : new Entry(owner, existing.holder, existing.fence, existing.acquiredNanos, floor);
        });
        if (outcome[0]) {
            signals.signal(name); // freed, or ending sooner: a waiter reads the new expiry instead of the old one
        }
        return outcome[0];
    }

    @Override
    public boolean forceRelease(String name) {
        long now = nanoClock.getAsLong();
        Entry removed = locks.remove(name);
        if (removed != null) {
            signals.signal(name);
        }
        return removed != null && removed.liveAt(now);
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        long now = nanoClock.getAsLong();
        boolean[] extended = new boolean[1];
        locks.computeIfPresent(name, (key, existing) -> {
            if (!existing.liveAt(now)) {
                return null;
            }
            if (!existing.owner.equals(owner)) {
                return existing;
            }
            extended[0] = true;
            return new Entry(owner, existing.holder, existing.fence, existing.acquiredNanos, now + ttl.toNanos());
        });
        return extended[0];
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        long now = nanoClock.getAsLong();
        Entry entry = locks.get(name);
        return entry != null && entry.liveAt(now) ? Optional.of(toEntry(name, entry, now)) : Optional.empty();
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        long now = nanoClock.getAsLong();
        List<LockEntry> live = new ArrayList<>();
        for (Map.Entry<String, Entry> lock : locks.entrySet()) {
            if (live.size() >= limit) {
                break;
            }
            if (lock.getKey().startsWith(prefix) && lock.getValue().liveAt(now)) {
                live.add(toEntry(lock.getKey(), lock.getValue(), now));
            }
        }
        return live;
    }

    /** Releases and expiries both reach waiters: a release signals, an expiry bounds the waiter's sleep. */
    @Override
    public WaitPolicy waitPolicy() {
        return WaitPolicy.signalled();
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        signals.await(name, maxWait, () -> {
            Entry entry = locks.get(name);
            return entry != null && entry.liveAt(nanoClock.getAsLong());
        });
    }

    @Override
    public void audit(AuditRecord record) {
        Instant now = Instant.now();
        synchronized (audit) {
            audit.addFirst(record.at(now));
            while (audit.size() > auditLimits.maxRecords()) {
                audit.removeLast();
            }
            dropOlderThan(now.minus(auditLimits.maxAge()));
        }
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        synchronized (audit) {
            dropOlderThan(Instant.now().minus(auditLimits.maxAge()));
            return audit.stream().limit(limit).toList();
        }
    }

    private void dropOlderThan(Instant oldest) {
        while (!audit.isEmpty() && audit.peekLast().at().isBefore(oldest)) {
            audit.removeLast();
        }
    }

    @Override
    public void ping() {
        // Always reachable: it is this JVM.
    }

    /** Drops every lease; a closed store is empty. */
    @Override
    public void close() {
        locks.clear();
        signals.signalAll();
    }

    /** @return how many entries the map holds, live or not yet reclaimed (for tests of reclamation) */
    int size() {
        return locks.size();
    }

    private void sweep(long now) {
        locks.values().removeIf(entry -> !entry.liveAt(now));
    }

    private LockEntry toEntry(String name, Entry entry, long now) {
        return new LockEntry(
                name,
                entry.owner,
                entry.holder,
                wallClock(entry.acquiredNanos),
                wallClock(entry.expiresNanos),
                Duration.ofNanos(entry.expiresNanos - now),
                entry.fence);
    }

    private Instant wallClock(long nanos) {
        return Instant.ofEpochSecond(0, wallOffsetNanos + nanos);
    }
}

package dev.exclusive;

import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store with faults injected on demand: an acquisition, a release, an extend or an inspection that cannot reach
 * the backend, or an
 * extend held back until the test lets it go, an audit trail that cannot be written, waits cut short. Counts attempts, list calls and waits, so a test can prove a path never lists.
 */
final class FaultyStore implements LockStore {

    /** What an extend does before it reaches the real store. */
    interface ExtendHook {
        void beforeExtend(String name) throws InterruptedException;
    }

    private final LockStore real;
    volatile boolean acquireFails;
    volatile boolean releaseFails;
    volatile boolean extendFails;
    volatile boolean inspectFails;
    volatile boolean auditFails;
    volatile ExtendHook extendHook = name -> {};
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicInteger extends_ = new AtomicInteger();
    final AtomicInteger lists = new AtomicInteger();
    final AtomicInteger waits = new AtomicInteger();
    /** Threads in {@link #awaitRelease} now, and the most there were at once. */
    final AtomicInteger waitingNow = new AtomicInteger();

    final AtomicInteger mostWaiting = new AtomicInteger();
    /** The longest a wait for a release lasts, so a waiter retries often; {@code null}: as long as asked. */
    volatile Duration waitCap;

    FaultyStore(LockStore real) {
        this.real = real;
    }

    private static LockStoreUnavailableException down(String name) {
        return new LockStoreUnavailableException("injected: the store is down", name, null, null);
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        attempts.incrementAndGet();
        if (acquireFails) {
            throw down(name);
        }
        return real.tryAcquire(name, owner, holder, ttl);
    }

    @Override
    public boolean release(String name, String owner) {
        if (releaseFails) {
            throw down(name);
        }
        return real.release(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        return real.forceRelease(name);
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        try {
            extendHook.beforeExtend(name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw down(name);
        }
        extends_.incrementAndGet();
        if (extendFails) {
            throw down(name);
        }
        return real.extend(name, owner, ttl);
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        if (inspectFails) {
            throw down(name);
        }
        return real.inspect(name);
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        lists.incrementAndGet();
        return real.list(prefix, limit);
    }

    @Override
    public void audit(AuditRecord record) {
        if (auditFails) {
            throw new LockStoreUnavailableException(
                    "injected: the audit trail is down, password=hunter2", record.lockName(), null, null);
        }
        real.audit(record);
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        return real.auditTrail(limit);
    }

    @Override
    public WaitPolicy waitPolicy() {
        return real.waitPolicy();
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        waits.incrementAndGet();
        mostWaiting.accumulateAndGet(waitingNow.incrementAndGet(), Math::max);
        try {
            Duration cap = waitCap;
            real.awaitRelease(name, cap != null && cap.compareTo(maxWait) < 0 ? cap : maxWait);
        } finally {
            waitingNow.decrementAndGet();
        }
    }

    @Override
    public void close() {
        real.close();
    }
}

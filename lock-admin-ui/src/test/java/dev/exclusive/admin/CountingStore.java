package dev.exclusive.admin;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store that counts how often it is listed and its audit trail read: shows which console operations read the
 * stores. Its audit trail can be made unreadable.
 */
final class CountingStore implements LockStore {

    private final LockStore delegate;
    private final AtomicInteger lists = new AtomicInteger();
    private final AtomicInteger auditReads = new AtomicInteger();
    volatile boolean auditTrailFails;
    volatile boolean listFails;
    /** What a failing listing says; a third-party store's may quote its URL or a password. */
    volatile String listFailure = "injected: the store is down";
    /** Runs before each listing: what the store's call costs (a fake clock moved on by its timeout, say). */
    volatile Runnable beforeList = () -> {};

    CountingStore(LockStore delegate) {
        this.delegate = delegate;
    }

    int lists() {
        return lists.get();
    }

    int auditReads() {
        return auditReads.get();
    }

    @Override
    public void audit(AuditRecord record) {
        delegate.audit(record);
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        auditReads.incrementAndGet();
        if (auditTrailFails) {
            throw new LockStoreUnavailableException("injected: the audit trail is down", null, null, null);
        }
        return delegate.auditTrail(limit);
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        lists.incrementAndGet();
        beforeList.run();
        if (listFails) {
            throw new LockStoreUnavailableException(listFailure, null, null, null);
        }
        return delegate.list(prefix, limit);
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        return delegate.tryAcquire(name, owner, holder, ttl);
    }

    @Override
    public boolean release(String name, String owner) {
        return delegate.release(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        return delegate.forceRelease(name);
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return delegate.extend(name, owner, ttl);
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public void close() {
        delegate.close();
    }
}

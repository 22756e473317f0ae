package dev.exclusive.otel;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A real store that a test can take down: every lock operation then fails as an unreachable backend does. */
final class DownStore implements LockStore {

    private final LockStore real;
    volatile boolean down;

    DownStore(LockStore real) {
        this.real = real;
    }

    private void check(String name) {
        if (down) {
            throw new LockStoreUnavailableException("injected: the store is down", name, null, null);
        }
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        check(name);
        return real.tryAcquire(name, owner, holder, ttl);
    }

    @Override
    public boolean release(String name, String owner) {
        check(name);
        return real.release(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        check(name);
        return real.forceRelease(name);
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        check(name);
        return real.extend(name, owner, ttl);
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        check(name);
        return real.inspect(name);
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        check(null);
        return real.list(prefix, limit);
    }

    @Override
    public WaitPolicy waitPolicy() {
        return real.waitPolicy();
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        real.awaitRelease(name, maxWait);
    }

    @Override
    public void close() {
        real.close();
    }
}

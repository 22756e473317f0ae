package dev.exclusive.cdi;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.memory.MemoryLockStore;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Store type {@code probe} for tests: a memory store whose reachability a test switches ({@code down}), whose
 * closing it can see, and which counts the listings it answers ({@code lists}). Setting {@code id} names the
 * instance in {@link #INSTANCES}. It keeps the thread factory it was given ({@code threads}).
 */
public final class ProbeLockStoreProvider implements LockStoreProvider {

    static final Map<String, ProbeStore> INSTANCES = new ConcurrentHashMap<>();

    @Override
    public String type() {
        return "probe";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        return create(storeName, settings, null);
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings, ThreadFactory threads) {
        String id = settings.get("id");
        if (id == null) {
            throw new LockConfigurationException(
                    "Store '" + storeName + "' of type probe needs exclusive.store." + storeName + ".id",
                    storeName,
                    "id",
                    null);
        }
        ProbeStore store = new ProbeStore(storeName, threads);
        INSTANCES.put(id, store);
        return store;
    }

    static final class ProbeStore implements LockStore {
        private final String name;
        /** The factory the store's background threads would come from, as the provider received it. */
        final ThreadFactory threads;

        private final MemoryLockStore memory = new MemoryLockStore();
        volatile boolean down;
        volatile boolean closed;
        final AtomicInteger lists = new AtomicInteger();

        ProbeStore(String name, ThreadFactory threads) {
            this.name = name;
            this.threads = threads;
        }

        private void reachable() {
            if (down) {
                throw new LockStoreUnavailableException("probe store '" + name + "' is switched off", null, name, null);
            }
        }

        @Override
        public Acquisition tryAcquire(String lock, String owner, LockHolder holder, Duration ttl) {
            reachable();
            return memory.tryAcquire(lock, owner, holder, ttl);
        }

        @Override
        public boolean release(String lock, String owner) {
            reachable();
            return memory.release(lock, owner);
        }

        @Override
        public boolean forceRelease(String lock) {
            reachable();
            return memory.forceRelease(lock);
        }

        @Override
        public boolean extend(String lock, String owner, Duration ttl) {
            reachable();
            return memory.extend(lock, owner, ttl);
        }

        @Override
        public Optional<LockEntry> inspect(String lock) {
            reachable();
            return memory.inspect(lock);
        }

        @Override
        public List<LockEntry> list(String prefix, int limit) {
            lists.incrementAndGet();
            reachable();
            return memory.list(prefix, limit);
        }

        @Override
        public void awaitRelease(String lock, Duration maxWait) throws InterruptedException {
            memory.awaitRelease(lock, maxWait);
        }

        @Override
        public void close() {
            closed = true;
            memory.close();
        }
    }
}

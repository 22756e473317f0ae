package dev.exclusive.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryLockStoreTest extends LockStoreContract {

    @Override
    protected LockStore createStore() {
        return new MemoryLockStore();
    }

    /** One JVM is the whole backend: a peer shares the same instance. */
    @Override
    protected LockStore createPeerStore(LockStore first) {
        return first;
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(new MemoryLockStore(System::nanoTime, limits));
    }

    /** The trail lives in the instance, like the locks. */
    @Override
    protected boolean auditSurvivesRestart() {
        return false;
    }

    @Test
    void aMillionLockedAndReleasedNamesLeaveNoGrowth() {
        MemoryLockStore memory = new MemoryLockStore();
        try (LockRegistry registry =
                LockRegistry.builder().store("memory", memory).build()) {
            for (int i = 0; i < 1_000_000; i++) {
                Lock lock = registry.lock("one-off:" + i, Duration.ofSeconds(30));
                assertTrue(lock.get());
                assertTrue(lock.release());
            }
            assertEquals(0, memory.size());
        }
    }

    @Test
    void expiredNamesThatNobodyReleasesAreSwept() {
        AtomicLong now = new AtomicLong();
        MemoryLockStore memory = new MemoryLockStore(now::get);
        LockHolder holder = new LockHolder("test", "main", "");
        for (int i = 0; i < 100_000; i++) {
            assertTrue(memory.tryAcquire("abandoned:" + i, "owner", holder, Duration.ofMillis(10))
                    .acquired());
            now.addAndGet(Duration.ofMillis(1).toNanos());
        }
        assertTrue(memory.size() <= 4_096 + 10, "expired entries are swept, size " + memory.size());
    }

    @Test
    void expiryFollowsTheMonotonicClock() {
        AtomicLong now = new AtomicLong();
        MemoryLockStore memory = new MemoryLockStore(now::get);
        LockHolder holder = new LockHolder("test", "main", "");
        assertTrue(memory.tryAcquire("clocked", "a", holder, Duration.ofSeconds(10))
                .acquired());
        now.addAndGet(Duration.ofMillis(9_999).toNanos());
        assertFalse(memory.tryAcquire("clocked", "b", holder, Duration.ofSeconds(10))
                .acquired());
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertTrue(memory.tryAcquire("clocked", "b", holder, Duration.ofSeconds(10))
                .acquired());
        assertFalse(memory.release("clocked", "a"));
    }
}

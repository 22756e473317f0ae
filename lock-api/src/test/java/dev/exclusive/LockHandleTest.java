package dev.exclusive;

import static dev.exclusive.contract.LockStoreContract.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.memory.MemoryLockStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The handle's own behaviour around its store: options, renewal, and what a busy attempt tells. */
class LockHandleTest {

    private static final Duration TTL = Duration.ofMillis(300);

    private final FaultyStore store = new FaultyStore(new MemoryLockStore());
    private final AtomicInteger lost = new AtomicInteger();
    private final LockRegistry registry = LockRegistry.builder()
            .store("faulty", store)
            .listener(new LockListener() {
                @Override
                public void lost(Lock lock) {
                    lost.incrementAndGet();
                }
            })
            .build();

    @AfterEach
    void close() {
        registry.close();
    }

    // ---------------------------------------------------------------- options configure one handle

    @Test
    void optionsConfigureTheSameHandleAndKeepItsOwner() {
        Lock lock = registry.lock("imports:users", TTL);
        String owner = lock.owner();
        assertSame(lock, lock.purpose("Imports#run"));
        assertSame(lock, lock.autoExtend());
        assertEquals(owner, lock.owner());
        assertTrue(lock.get());
        assertEquals("Imports#run", registry.liveLocks("", 10).get(0).holder().purpose());
        assertTrue(lock.release());
    }

    @Test
    void autoExtendAfterGetRenewsTheHandleThatHolds() throws InterruptedException {
        // The old API returned a new handle here, so this hold was never renewed and expired after one ttl.
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        assertTrue(lock.get());
        awaitTrue(() -> store.extends_.get() >= 4, TTL.multipliedBy(10));
        assertTrue(lock.isLocked(), "renewed past four ttls");
        assertFalse(lock.isExpired());
        assertTrue(lock.release());
    }

    @Test
    void optionsAreRefusedOnceTheHandleHasTriedToAcquire() {
        Lock lock = registry.lock("imports:users", TTL);
        assertTrue(lock.get());
        IllegalStateException e = assertThrows(IllegalStateException.class, lock::autoExtend);
        assertTrue(e.getMessage().contains("imports:users") && e.getMessage().contains("autoExtend"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> lock.purpose("late"));
        assertTrue(lock.release());
        assertThrows(IllegalStateException.class, lock::autoExtend, "also after the release: the handle was used");

        Lock busy = registry.lock("imports:users", TTL);
        assertTrue(registry.lock("imports:users", TTL).get());
        assertFalse(busy.get());
        assertThrows(IllegalStateException.class, busy::autoExtend, "a busy attempt is an attempt too");
    }

    // ---------------------------------------------------------------- renewal and release

    @Test
    void aFailedReleaseStopsTheRenewalSoTheLeaseEnds() {
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        store.releaseFails = true;
        RuntimeException work = new RuntimeException("the work failed");
        RuntimeException thrown = assertThrows(
                RuntimeException.class,
                () -> lock.get(() -> {
                    throw work;
                }));
        assertSame(work, thrown, "the work's exception, unchanged");
        assertTrue(thrown.getSuppressed()[0] instanceof LockStoreUnavailableException);
        int renewalsAtRelease = store.extends_.get();
        // Before the fix the renewal went on: the lock was still held seven ttls later.
        awaitTrue(() -> !registry.lock("imports:users", TTL).isLocked(), TTL.multipliedBy(5));
        assertEquals(renewalsAtRelease, store.extends_.get(), "no renewal after the release");
    }

    @Test
    void aFailedReleaseOfCompletedWorkStopsTheRenewalToo() {
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        store.releaseFails = true;
        assertEquals("done", lock.get(() -> "done").value(), "the result survives a failed release");
        awaitTrue(() -> !registry.lock("imports:users", TTL).isLocked(), TTL.multipliedBy(5));
    }

    @Test
    void aFailedReleaseCanBeRetried() {
        Lock lock = registry.lock("imports:users", Duration.ofSeconds(30));
        assertTrue(lock.get());
        store.releaseFails = true;
        assertThrows(LockStoreUnavailableException.class, lock::release);
        store.releaseFails = false;
        assertTrue(lock.release(), "the hold stays on the handle after a failed release");
        assertFalse(lock.isLocked());
    }

    @Test
    void aRenewalRacingACleanReleaseIsNotALoss() throws Exception {
        CountDownLatch renewalStarted = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        store.extendHook = name -> {
            renewalStarted.countDown();
            assertTrue(released.await(10, TimeUnit.SECONDS));
        };
        assertTrue(lock.get());
        assertTrue(renewalStarted.await(10, TimeUnit.SECONDS), "a renewal is in flight");
        assertTrue(lock.release());
        released.countDown();
        // The in-flight renewal now finds the lease gone: because it was released, not lost. Its thread goes
        // back to waiting for work once it has decided.
        awaitTrue(() -> store.extends_.get() >= 1, TTL.multipliedBy(10));
        Thread renewal = renewalThread("exclusive-renewal-faulty");
        awaitTrue(() -> renewal.getState() == Thread.State.WAITING, TTL.multipliedBy(10));
        assertEquals(0, lost.get(), "no LockLost after a clean release");
        assertFalse(lock.isExpired());
    }

    @Test
    void aRenewalThatFindsTheLeaseGoneReportsItLost() {
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        assertTrue(lock.get());
        assertTrue(registry.forceRelease("imports:users"));
        awaitTrue(() -> lost.get() == 1, TTL.multipliedBy(10));
        assertTrue(lock.isExpired());
        assertFalse(lock.release());
    }

    @Test
    void aStuckStoreDoesNotDelayAnotherStoresRenewals() throws Exception {
        CountDownLatch unblock = new CountDownLatch(1);
        FaultyStore stuck = new FaultyStore(new MemoryLockStore());
        FaultyStore healthy = new FaultyStore(new MemoryLockStore());
        try (LockRegistry two = LockRegistry.builder()
                .store("stuck", stuck)
                .store("healthy", healthy)
                .build()) {
            stuck.extendHook = name -> unblock.await(30, TimeUnit.SECONDS);
            Lock onStuck = two.store("stuck").lock("a", TTL).autoExtend();
            Lock onHealthy = two.store("healthy").lock("b", TTL).autoExtend();
            assertTrue(onStuck.get());
            awaitTrue(
                    () -> stuck.extends_.get() == 0
                            && Thread.getAllStackTraces().keySet().stream()
                                    .anyMatch(t -> t.getName().equals("exclusive-renewal-stuck")),
                    TTL.multipliedBy(5));
            assertTrue(onHealthy.get());
            // With one renewal thread per registry the healthy store's renewals queued behind the stuck one and
            // its lease ran out.
            awaitTrue(() -> healthy.extends_.get() >= 4, TTL.multipliedBy(10));
            assertTrue(two.store("healthy").lock("b", TTL).isLocked());
            assertFalse(onHealthy.isExpired());
            unblock.countDown();
        }
    }

    @Test
    void renewalThreadsComeFromTheChosenFactoryAndStopOnClose() {
        AtomicInteger made = new AtomicInteger();
        LockRegistry custom = LockRegistry.builder()
                .store("memory", new MemoryLockStore())
                .threadFactory(task -> {
                    made.incrementAndGet();
                    return new Thread(task);
                })
                .build();
        Lock lock = custom.lock("a", TTL).autoExtend();
        assertTrue(lock.get());
        assertEquals(1, made.get());
        Thread renewal = renewalThread("exclusive-renewal-memory");
        assertTrue(renewal.isDaemon());
        custom.close();
        awaitTrue(() -> !renewal.isAlive(), Duration.ofSeconds(10));
    }

    // ---------------------------------------------------------------- when a lease ends early

    @Test
    void onLostInterruptInterruptsTheWorkWhenARenewalFindsTheLeaseGone() {
        Lock lock = registry.lock("imports:users", TTL).autoExtend().onLost(OnLost.INTERRUPT);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        LockResult<String> result = lock.get(() -> {
            assertTrue(registry.forceRelease("imports:users"), "an operator frees it mid-work");
            try {
                never.await(30, TimeUnit.SECONDS);
                return "ran to the end";
            } catch (InterruptedException e) {
                interrupted.set(true);
                return "stopped early";
            }
        });
        assertEquals("stopped early", result.value());
        assertTrue(interrupted.get());
        assertEquals(1, lost.get());
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt was the work's to take");
    }

    @Test
    void onLostLogLetsTheWorkRunToItsEnd() {
        Lock lock = registry.lock("imports:users", TTL).autoExtend();
        assertEquals(OnLost.LOG, lock.onLost());
        LockResult<String> result = lock.get(() -> {
            assertTrue(registry.forceRelease("imports:users"));
            awaitTrue(() -> lost.get() == 1, TTL.multipliedBy(10));
            return "done";
        });
        assertEquals("done", result.value(), "the result stands");
    }

    @Test
    void onLostRollbackTurnsTheResultOfWorkThatLostItsLockIntoLockLostException() {
        Lock lock = registry.lock("imports:users", TTL).onLost(OnLost.ROLLBACK);
        LockLostException e = assertThrows(
                LockLostException.class,
                () -> lock.get(() -> {
                    assertTrue(registry.forceRelease("imports:users"), "the lease ends while the work runs");
                    return "written";
                }));
        assertTrue(e.getMessage().contains("imports:users"), e.getMessage());
        assertEquals("imports:users", e.lockName().orElseThrow());
        assertEquals(
                "kept",
                registry.lock("imports:other", TTL)
                        .onLost(OnLost.ROLLBACK)
                        .get(() -> "kept")
                        .value(),
                "a hold that lasted keeps its result");
    }

    /**
     * Under {@link OnLost#ROLLBACK} the handle asks the store whether the hold lasted before it releases. When the
     * store cannot answer, the handle's own clock decides, as in lock-cdi: the lease had not run out, so the result
     * stands. Either way the lock is released. Before, the failed check threw before the release, and auto-extend
     * kept renewing the lease after the work had ended, until the registry closed.
     */
    @Test
    void onLostRollbackWhoseCheckCannotReachTheStoreStillReleasesTheLockAndStopsItsRenewal()
            throws InterruptedException {
        Lock lock = registry.lock("imports:users", TTL).autoExtend().onLost(OnLost.ROLLBACK);
        LockResult<String> result = lock.get(() -> {
            store.inspectFails = true; // the store cannot answer just as the work ends
            return "written";
        });
        store.inspectFails = false;

        assertEquals("written", result.value(), "the lease had not run out by the handle's clock: the result stands");
        assertFalse(lock.isHeld(), "released after the work");
        int renewals = store.extends_.get();
        Thread.sleep(TTL.multipliedBy(3).toMillis()); // renewals would run every third of the ttl
        assertEquals(renewals, store.extends_.get(), "no renewal after the work");
        assertTrue(registry.lock("imports:users", TTL).get(), "free for the next caller");
    }

    /** A hold whose lease ran out during the work is lost, even when the store is down for the check and the release. */
    @Test
    void onLostRollbackReportsTheLossEvenWhenTheReleaseFailsToo() {
        Lock lock = registry.lock("imports:users", TTL).onLost(OnLost.ROLLBACK);
        LockLostException e = assertThrows(
                LockLostException.class,
                () -> lock.get(() -> {
                    Thread.sleep(TTL.multipliedBy(2).toMillis()); // past the lease, by the handle's own clock
                    store.inspectFails = true;
                    store.releaseFails = true;
                    return "written";
                }));
        store.inspectFails = false;
        store.releaseFails = false;
        assertEquals(1, e.getSuppressed().length, "the release's failure rides along");
        assertInstanceOf(LockStoreUnavailableException.class, e.getSuppressed()[0]);
    }

    @Test
    void theWorkKnowsWhichLockItRunsUnder() {
        assertTrue(Locks.current().isEmpty());
        IllegalStateException outside = assertThrows(IllegalStateException.class, Locks::assertHeld);
        assertTrue(outside.getMessage().contains("No lock is held"), outside.getMessage());
        Lock outer = registry.lock("outer", TTL);
        Lock inner = registry.lock("inner", TTL);
        outer.get(() -> {
            assertSame(outer, Locks.assertHeld());
            inner.get(() -> {
                assertSame(inner, Locks.current().orElseThrow());
                assertEquals(inner.fence(), Locks.assertHeld().fence());
            });
            assertSame(outer, Locks.current().orElseThrow(), "back to the outer lock");
        });
        assertTrue(Locks.current().isEmpty(), "nothing after the work");
        assertThrows(
                RuntimeException.class,
                () -> outer.get(() -> {
                    throw new RuntimeException("failed");
                }));
        assertTrue(Locks.current().isEmpty(), "nothing after work that threw");
    }

    @Test
    void assertHeldFailsOnceTheLeaseRanOut() {
        Lock lock = registry.lock("short", Duration.ofMillis(50));
        lock.get(() -> {
            awaitTrue(lock::isExpired, Duration.ofSeconds(5));
            IllegalStateException e = assertThrows(IllegalStateException.class, Locks::assertHeld);
            assertTrue(e.getMessage().contains("short"), e.getMessage());
        });
    }

    // ---------------------------------------------------------------- busy

    @Test
    void aBusyAttemptTellsHowLongTheHolderHasLeftWithoutListing() {
        assertTrue(registry.lock("imports:users", Duration.ofSeconds(30)).get());
        Lock waiting = registry.lock("imports:users", TTL);
        assertTrue(waiting.busyFor().isEmpty(), "no attempt yet");
        assertFalse(waiting.get());
        Duration left = waiting.busyFor().orElseThrow();
        assertTrue(
                left.compareTo(Duration.ofSeconds(25)) > 0 && left.compareTo(Duration.ofSeconds(30)) <= 0, "" + left);
        assertEquals(0, store.lists.get());
        assertFalse(waiting.block(Duration.ofMillis(50)));
        assertTrue(waiting.busyFor().isPresent());
        assertTrue(registry.forceRelease("imports:users"));
        assertTrue(waiting.get());
        assertTrue(waiting.busyFor().isEmpty(), "cleared by the acquisition");
    }

    private static Thread renewalThread(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no thread named " + name));
    }
}

package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockListener.Operation;
import dev.exclusive.memory.MemoryLockStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The listener's newer events: how long each attempt took and how it ended, how long each hold lasted. */
class LockListenerTest {

    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final List<Duration> durations = new CopyOnWriteArrayList<>();
    private final CountDownLatch waitingHeard = new CountDownLatch(1);

    private final LockListener recorder = new LockListener() {
        @Override
        public void acquired(Lock lock, Duration waited) {
            record("acquired " + lock.group(), waited);
        }

        @Override
        public void busy(Lock lock, Duration waited) {
            record("busy " + lock.group(), waited);
        }

        @Override
        public void timedOut(Lock lock, Duration waited) {
            record("timedOut " + lock.group(), waited);
        }

        @Override
        public void waiting(Lock lock) {
            heard.add("waiting " + lock.group());
            waitingHeard.countDown();
        }

        @Override
        public void interrupted(Lock lock, Duration waited) {
            record("interrupted " + lock.group(), waited);
        }

        @Override
        public void failed(Lock lock, Operation operation, Duration elapsed, LockStoreUnavailableException error) {
            record("failed " + operation + " " + error.lockName().orElse("?"), elapsed);
        }

        @Override
        public void released(Lock lock, Duration held) {
            record("released " + lock.group(), held);
        }

        @Override
        public void expired(Lock lock, Duration held) {
            record("expired " + lock.group(), held);
        }

        @Override
        public void renewalFailed(Lock lock, RuntimeException error) {
            heard.add("renewalFailed " + lock.group());
        }

        @Override
        public void forceReleased(String storeName, String name, String group, boolean released) {
            heard.add("forced " + storeName + " " + name + " " + group + " " + released);
        }
    };

    private void record(String event, Duration duration) {
        heard.add(event);
        durations.add(duration);
    }

    @Test
    void eachAttemptEndsInOneOutcomeWithHowLongItTook() {
        try (LockRegistry registry = LockRegistry.builder()
                .store("m", new MemoryLockStore(), "shop:")
                .listener(recorder)
                .build()) {
            Lock holder = registry.lock("purchase:product:42", 10);
            assertTrue(holder.get());
            assertFalse(registry.lock("purchase:product:42", 10).get());
            assertFalse(registry.lock("purchase:product:42", 10).block(Duration.ZERO));
            assertFalse(registry.lock("purchase:product:42", 10).block(Duration.ofMillis(30)));
            assertTrue(holder.release());
        }
        assertEquals(
                List.of(
                        "acquired purchase:*",
                        "busy purchase:*",
                        "busy purchase:*",
                        "waiting purchase:*",
                        "timedOut purchase:*",
                        "released purchase:*"),
                heard);
        assertTrue(durations.get(3).compareTo(Duration.ofMillis(30)) >= 0, "the timed-out wait: " + durations);
    }

    @Test
    void aBlockedWaiterHearsWaitingOnceBeforeItsOutcomeHoweverOftenItRetries() {
        FaultyStore store = new FaultyStore(new MemoryLockStore());
        store.waitCap = Duration.ofMillis(2);
        try (LockRegistry registry =
                LockRegistry.builder().store("f", store).listener(recorder).build()) {
            Lock holder = registry.lock("imports:users", 60);
            assertTrue(holder.get());
            assertFalse(registry.lock("imports:users", 10).block(Duration.ofMillis(40)));
            assertTrue(store.waits.get() >= 2, "the waiter retried: " + store.waits.get() + " waits");
            assertTrue(holder.release());
        }
        assertEquals(
                List.of("acquired imports:*", "waiting imports:*", "timedOut imports:*", "released imports:*"), heard);
    }

    @Test
    void aWaiterThatAcquiresAfterTheReleaseHeardWaitingFirst() throws Exception {
        try (LockRegistry registry = LockRegistry.builder().listener(recorder).build()) {
            Lock holder = registry.lock("reports:daily", 60);
            assertTrue(holder.get());
            Thread waiter = new Thread(() -> registry.lock("reports:daily", 60).block(Duration.ofSeconds(30)));
            waiter.start();
            assertTrue(waitingHeard.await(10, TimeUnit.SECONDS), "no waiting heard");
            assertTrue(holder.release());
            waiter.join(10_000);
            assertFalse(waiter.isAlive());
        }
        // The holder's "released" is told after the store freed the lock, so the waiter's "acquired" may come first.
        assertEquals(List.of("acquired reports:*", "waiting reports:*"), heard.subList(0, 2));
        assertEquals(
                List.of("acquired reports:*", "released reports:*"),
                heard.subList(2, 4).stream().sorted().toList());
        assertEquals(4, heard.size());
    }

    @Test
    void aWaitEndedByAnInterruptIsHeardAndTheCallerStillGetsTheExceptionWithItsFlagSet() throws Exception {
        try (LockRegistry registry = LockRegistry.builder().listener(recorder).build()) {
            Lock holder = registry.lock("imports:users", 60);
            assertTrue(holder.get());
            List<Object> caught = new CopyOnWriteArrayList<>();
            Thread waiter = new Thread(() -> {
                try {
                    registry.lock("imports:users", 60).block(Duration.ofSeconds(30));
                    caught.add("returned");
                } catch (LockInterruptedException e) {
                    caught.add(e.getCause().getClass().getSimpleName());
                    caught.add(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            assertTrue(waitingHeard.await(10, TimeUnit.SECONDS), "no waiting heard");
            waiter.interrupt();
            waiter.join(10_000);
            assertFalse(waiter.isAlive());
            assertEquals(List.of("InterruptedException", true), caught);
            assertTrue(holder.release());
        }
        assertEquals(
                List.of("acquired imports:*", "waiting imports:*", "interrupted imports:*", "released imports:*"),
                heard);
    }

    @Test
    void aWaiterInterruptedBeforeItCalledHearsWaitingThenInterrupted() {
        try (LockRegistry registry = LockRegistry.builder().listener(recorder).build()) {
            Lock holder = registry.lock("x", 60);
            assertTrue(holder.get());
            Thread.currentThread().interrupt();
            try {
                assertThrows(
                        LockInterruptedException.class,
                        () -> registry.lock("x", 60).block(Duration.ofSeconds(30)));
                assertTrue(Thread.currentThread().isInterrupted(), "the flag is set again");
            } finally {
                Thread.interrupted();
            }
            assertTrue(holder.release());
        }
        assertEquals(List.of("acquired x", "waiting x", "interrupted x", "released x"), heard);
    }

    @Test
    void aStoreFailureDuringAWaitEndsItAsAFailure() throws Exception {
        FaultyStore store = new FaultyStore(new MemoryLockStore());
        store.waitCap = Duration.ofMillis(2);
        try (LockRegistry registry =
                LockRegistry.builder().store("f", store).listener(recorder).build()) {
            Lock holder = registry.lock("sync", 60);
            assertTrue(holder.get());
            List<Object> caught = new CopyOnWriteArrayList<>();
            Thread waiter = new Thread(() -> {
                try {
                    registry.lock("sync", 60).block(Duration.ofSeconds(30));
                } catch (LockStoreUnavailableException e) {
                    caught.add(e);
                }
            });
            waiter.start();
            assertTrue(waitingHeard.await(10, TimeUnit.SECONDS), "no waiting heard");
            store.acquireFails = true;
            waiter.join(10_000);
            assertFalse(waiter.isAlive());
            assertEquals(1, caught.size());
            store.acquireFails = false;
            assertTrue(holder.release());
        }
        assertEquals(List.of("acquired sync", "waiting sync", "failed ACQUIRE sync", "released sync"), heard);
    }

    @Test
    void aReleaseThatFindsTheHoldGoneEndsItAsExpiredOnce() {
        try (LockRegistry registry = LockRegistry.builder().listener(recorder).build()) {
            Lock lock = registry.lock("reports:daily", 10);
            assertTrue(lock.get());
            assertTrue(registry.forceRelease("reports:daily"));
            assertFalse(lock.release());
            assertFalse(lock.release());
        }
        assertEquals(
                List.of("acquired reports:*", "forced memory reports:daily reports:* true", "expired reports:*"),
                heard);
    }

    @Test
    void anUnreachableStoreIsHeardAsAFailureOfTheOperation() {
        FaultyStore store = new FaultyStore(new MemoryLockStore());
        try (LockRegistry registry =
                LockRegistry.builder().store("f", store).listener(recorder).build()) {
            Lock lock = registry.lock("imports:users", 10);
            store.acquireFails = true;
            assertThrows(LockStoreUnavailableException.class, lock::get);
            store.acquireFails = false;
            assertTrue(lock.get());
            store.releaseFails = true;
            assertThrows(LockStoreUnavailableException.class, lock::release);
            store.extendFails = true;
            assertThrows(LockStoreUnavailableException.class, lock::extend);
            store.releaseFails = false;
            assertTrue(lock.release());
        }
        assertEquals(
                List.of(
                        "failed ACQUIRE imports:users",
                        "acquired imports:*",
                        "failed RELEASE imports:users",
                        "failed EXTEND imports:users",
                        "released imports:*"),
                heard);
    }

    @Test
    void aRenewalThatCannotReachTheStoreIsHeard() throws InterruptedException {
        FaultyStore store = new FaultyStore(new MemoryLockStore());
        CountDownLatch renewalFailed = new CountDownLatch(1);
        LockListener listener = new LockListener() {
            @Override
            public void renewalFailed(Lock lock, RuntimeException error) {
                renewalFailed.countDown();
            }
        };
        try (LockRegistry registry =
                LockRegistry.builder().store("f", store).listener(listener).build()) {
            store.extendFails = true;
            Lock lock = registry.lock("sync", Duration.ofMillis(300)).autoExtend();
            assertTrue(lock.get());
            assertTrue(renewalFailed.await(5, TimeUnit.SECONDS), "no renewal failure heard");
            lock.release();
        }
    }

    @Test
    void aNamedGroupReplacesTheDerivedOneAndIsFixedOnceTheHandleStarted() {
        try (LockRegistry registry = LockRegistry.builder().listener(recorder).build()) {
            Lock lock = registry.lock("user-42-export", 10).group("user-{id}-export");
            assertEquals("user-{id}-export", lock.group());
            assertTrue(lock.get());
            assertThrows(IllegalStateException.class, () -> lock.group("other"));
            assertThrows(
                    IllegalArgumentException.class, () -> registry.lock("x", 10).group(" "));
            lock.forceRelease();
        }
        assertEquals(List.of("acquired user-{id}-export", "forced memory user-42-export user-{id}-export true"), heard);
    }

    @Test
    void theDerivedGroupIsTheNameUpToItsFirstColon() {
        assertEquals("purchase:*", LockNames.group("purchase:product:42"));
        assertEquals("nightly-export", LockNames.group("nightly-export"));
        assertEquals(":*", LockNames.group(":x"));
        assertEquals(":*", LockNames.group(":y"));
        assertEquals("purchase:*", LockNames.group("purchase:product:43"));
        assertEquals("purchases:*", LockNames.group("purchases:1"));
        assertEquals("purchasf:*", LockNames.group("purchasf:1"));
        assertEquals("purchase:*", LockNames.group("purchase:1"));
    }

    @Test
    void aListenerWrittenBeforeTheNewerEventsHearsWhatItDid() {
        List<String> old = new CopyOnWriteArrayList<>();
        LockListener legacy = new LockListener() {
            @Override
            public void acquired(Lock lock) {
                old.add("acquired");
            }

            @Override
            public void busy(Lock lock) {
                old.add("busy");
            }

            @Override
            public void released(Lock lock) {
                old.add("released");
            }

            @Override
            public void forceReleased(String storeName, String name, boolean released) {
                old.add("forced " + released);
            }
        };
        try (LockRegistry registry = LockRegistry.builder().listener(legacy).build()) {
            Lock lock = registry.lock("x", 10);
            assertTrue(lock.get());
            assertFalse(registry.lock("x", 10).get());
            assertFalse(registry.lock("x", 10).block(Duration.ofMillis(5)));
            assertTrue(lock.release());
            assertFalse(registry.forceRelease("x"));
        }
        assertEquals(List.of("acquired", "busy", "busy", "released", "forced false"), old);
    }
}

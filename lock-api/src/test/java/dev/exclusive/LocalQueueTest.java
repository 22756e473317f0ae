package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Threads of one registry that find one lock busy wait in line: only the first waits on the store, and whoever leaves
 * the line (acquired, gave up, interrupted) lets the next one move up without losing the wake-ups the store gives.
 */
class LocalQueueTest {

    private static final String NAME = "imports:users";
    private static final Duration LONG = Duration.ofSeconds(10);

    private final FaultyStore store = new FaultyStore(new MemoryLockStore());
    private final AtomicInteger timedOut = new AtomicInteger();
    private final LockRegistry registry = LockRegistry.builder()
            .store("queued", store)
            .listener(new LockListener() {
                @Override
                public void timedOut(Lock lock, Duration waited) {
                    timedOut.incrementAndGet();
                }
            })
            .build();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() throws InterruptedException {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
        registry.close();
    }

    @Test
    void underContentionOneThreadOfTheRegistryWaitsOnTheStoreAtATime() throws Exception {
        int workers = 8;
        int each = 100;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            running.add(threads.submit(() -> {
                Lock lock = registry.lock(NAME, LONG);
                start.await();
                for (int n = 0; n < each; n++) {
                    assertTrue(lock.block(LONG));
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                    assertTrue(lock.release());
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> worker : running) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertTrue(store.waits.get() > 0, "the threads waited");
        assertEquals(1, store.mostWaiting.get(), "threads waiting on the store at once");
    }

    @Test
    void aThreadThatFindsOthersWaitingTriesOnceThenWaitsInLineUntilItsWaitEnds() throws Exception {
        assertTrue(registry.lock(NAME, LONG).get());
        Future<Boolean> head = threads.submit(() -> registry.lock(NAME, LONG).block(LONG));
        awaitTrue(() -> store.waits.get() > 0, "the head waits on the store");
        int attempts = store.attempts.get();
        long before = System.nanoTime();
        assertFalse(registry.lock(NAME, LONG).block(Duration.ofMillis(200)));
        long waited = System.nanoTime() - before;
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(200), "waited " + waited + " ns");
        assertTrue(waited < TimeUnit.SECONDS.toNanos(5), "waited " + waited + " ns");
        assertEquals(attempts + 1, store.attempts.get(), "its own first attempt; then the head alone asks the store");
        assertEquals(1, timedOut.get());
        assertTrue(registry.forceRelease(NAME));
        assertTrue(head.get(10, TimeUnit.SECONDS));
    }

    @Test
    void anInterruptedThreadInLineStopsWaitingAndTheLineStillMoves() throws Exception {
        Lock holder = registry.lock(NAME, LONG);
        assertTrue(holder.get());
        Future<Boolean> head = threads.submit(() -> registry.lock(NAME, LONG).block(LONG));
        awaitTrue(() -> store.waits.get() > 0, "the head waits on the store");
        AtomicReference<Thread> inLine = new AtomicReference<>();
        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        threads.submit(() -> {
            inLine.set(Thread.currentThread());
            try {
                registry.lock(NAME, LONG).block(LONG);
                interrupted.complete(null);
            } catch (RuntimeException e) {
                interrupted.complete(Thread.currentThread().isInterrupted() ? e : new AssertionError("flag lost", e));
            }
        });
        awaitTrue(() -> inLine.get() != null && inLine.get().getState() == Thread.State.TIMED_WAITING, "in line");
        // The last comes once the second is in line, and is in line itself before the holder releases: else it could
        // take the freed lock on its first attempt, ahead of the head, as any newcomer may.
        AtomicReference<Thread> lastInLine = new AtomicReference<>();
        Future<Boolean> last = threads.submit(() -> {
            lastInLine.set(Thread.currentThread());
            return registry.lock(NAME, LONG).block(LONG);
        });
        awaitTrue(
                () -> lastInLine.get() != null && lastInLine.get().getState() == Thread.State.TIMED_WAITING,
                "the last in line");
        inLine.get().interrupt();
        assertInstanceOf(LockInterruptedException.class, interrupted.get(10, TimeUnit.SECONDS));
        assertTrue(holder.release());
        assertTrue(head.get(10, TimeUnit.SECONDS));
        assertFalse(last.isDone(), "the head holds it now");
        assertTrue(registry.forceRelease(NAME));
        assertTrue(last.get(10, TimeUnit.SECONDS));
    }

    @Test
    void whenTheHeadGivesUpTheNextTakesTheLockAsSoonAsItIsFree() throws Exception {
        // The holder never releases: its lease ends after 300 ms.
        assertTrue(registry.lock(NAME, Duration.ofMillis(300)).get());
        Future<Boolean> head = threads.submit(() -> registry.lock(NAME, LONG).block(Duration.ofMillis(100)));
        awaitTrue(() -> store.waits.get() > 0, "the head waits on the store");
        long before = System.nanoTime();
        assertTrue(registry.lock(NAME, LONG).block(LONG));
        assertFalse(head.get(10, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(3), "taken when the lease ended");
    }

    @Test
    void theNextInLineTakesOverWhenTheHoldOfTheOneBeforeItEndsWithoutARelease() throws Exception {
        // Neither holder releases; each hold ends after its 300 ms lease, in this JVM, with no release to wake anyone.
        Duration ttl = Duration.ofMillis(300);
        assertTrue(registry.lock(NAME, ttl).get());
        ConcurrentLinkedQueue<Long> acquiredAt = new ConcurrentLinkedQueue<>();
        long before = System.nanoTime();
        Future<Boolean> head = threads.submit(() -> {
            boolean got = registry.lock(NAME, ttl).block(LONG);
            acquiredAt.add(System.nanoTime() - before);
            return got;
        });
        awaitTrue(() -> store.waits.get() > 0, "the head waits on the store");
        Future<Boolean> next = threads.submit(() -> {
            boolean got = registry.lock(NAME, ttl).block(LONG);
            acquiredAt.add(System.nanoTime() - before);
            return got;
        });
        assertTrue(head.get(10, TimeUnit.SECONDS));
        assertTrue(next.get(10, TimeUnit.SECONDS));
        long last = acquiredAt.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(last < TimeUnit.SECONDS.toNanos(3), "the second took it " + last / 1_000_000 + " ms after");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        LockStoreContract.awaitTrue(condition, Duration.ofSeconds(10), what);
    }
}

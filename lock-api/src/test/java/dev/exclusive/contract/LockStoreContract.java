package dev.exclusive.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exclusive.AuditRecord;
import dev.exclusive.InvalidLockDurationException;
import dev.exclusive.InvalidLockNameException;
import dev.exclusive.InvalidLockTokenException;
import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInfo;
import dev.exclusive.LockInterruptedException;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockResult;
import dev.exclusive.UnknownStoreException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link LockStore} must show, run through the public API. A store's test extends this
 * class and says how to open a store on its backend; the suite does the rest.
 *
 * <p>Each test works under a fresh random prefix, so stores on shared backends (a Redis, a database) need no
 * cleanup between tests. Timing assertions are loose bounds that prove a mechanism (a waiter wakes on release,
 * not after a polling interval), never speed measurements.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockStoreContract {

    /** The name of the store in the registries the suite builds. */
    protected static final String STORE = "contract";

    private final List<LockRegistry> registries = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();
    private String prefix;
    private LockStore store;

    /** The registry every test uses, over {@link #createStore()} under this test's prefix. */
    protected LockRegistry registry;

    /**
     * Opens a store on this test's backend. Called once per test; the suite closes it.
     *
     * @return a new store
     */
    protected abstract LockStore createStore();

    /**
     * Opens a second store on the same backend, as another process or server would. The default opens a new
     * one with {@link #createStore()}; a store that coordinates only inside one instance (memory) returns
     * {@code first}.
     *
     * @param first the store the test already uses
     * @return a store that shares the backend of {@code first}
     */
    protected LockStore createPeerStore(LockStore first) {
        return createStore();
    }

    /**
     * Opens a store on this test's backend that keeps its audit trail within {@code limits}, for the case that
     * proves the bound. The default returns empty, and that case is skipped; every built-in store overrides it.
     *
     * @param limits the audit trail's bounds
     * @return a new store, or empty when the store's audit trail cannot be bounded from a test
     */
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.empty();
    }

    /**
     * @return whether a new store instance on the backend reads the audit trail an earlier one wrote (a restart);
     *         {@code false} only for a store that lives in one instance (memory)
     */
    protected boolean auditSurvivesRestart() {
        return true;
    }

    /** @return a ttl short enough to wait out in a test, long enough for the store to be asked twice */
    protected Duration shortTtl() {
        return Duration.ofMillis(400);
    }

    /** @return how many threads the contention test runs (16 unless a store's backend is slow) */
    protected int contentionThreads() {
        return 16;
    }

    /** @return how many acquisitions each contention thread makes */
    protected int contentionRounds() {
        return 500;
    }

    @BeforeEach
    void openRegistry() {
        prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        store = createStore();
        registry = newRegistry(store);
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        for (ExecutorService executor : executors) {
            executor.shutdownNow();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
        for (LockRegistry each : registries) {
            each.close();
        }
    }

    /** @return the store this test's {@link #registry} runs on, for the SPI-level cases */
    protected final LockStore store() {
        return store;
    }

    /** @return {@code name} with this test's prefix, as the store receives it */
    protected final String fullName(String name) {
        return prefix + name;
    }

    /** @return a registry over {@code backend} with this test's prefix */
    protected final LockRegistry newRegistry(LockStore backend) {
        LockRegistry created = LockRegistry.builder()
                .store(STORE, backend, prefix)
                .instanceName("contract-node")
                .build();
        registries.add(created);
        return created;
    }

    /** @return a registry on a peer store: another process or server */
    protected final LockRegistry peerRegistry() {
        return newRegistry(createPeerStore(store));
    }

    protected final Lock lock(String name) {
        return registry.lock(name, Duration.ofSeconds(30));
    }

    // ---------------------------------------------------------------- acquisition and exclusivity

    @Test
    void lockAcquiresNothing() {
        Lock lock = lock("reports:daily");
        assertFalse(lock.isLocked());
        assertTrue(lock.fence().isEmpty());
        assertTrue(lock.remaining().isEmpty());
        assertFalse(lock.isExpired());
    }

    @Test
    void nameIncludesTheStorePrefix() {
        assertEquals(prefix + "reports:daily", lock("reports:daily").name());
        assertEquals(STORE, lock("reports:daily").storeName());
    }

    @Test
    void getAcquiresAFreeLock() {
        Lock lock = lock("reports:daily");
        assertTrue(lock.get());
        assertTrue(lock.isLocked());
        assertTrue(lock.fence().isPresent());
        assertFalse(lock.isExpired());
    }

    @Test
    void secondHandleCannotGetAHeldLock() {
        assertTrue(lock("reports:daily").get());
        assertFalse(lock("reports:daily").get());
    }

    @Test
    void handleOnAnotherServerCannotGetAHeldLock() {
        assertTrue(lock("reports:daily").get());
        assertFalse(peerRegistry().lock("reports:daily", Duration.ofSeconds(30)).get());
    }

    @Test
    void holdingHandleIsNotReentrant() {
        Lock lock = lock("reports:daily");
        assertTrue(lock.get());
        long fence = lock.fence().getAsLong();
        assertFalse(lock.get());
        assertEquals(fence, lock.fence().getAsLong());
        assertTrue(lock.release());
    }

    @Test
    void acquireBySameOwnerIsIdempotent() {
        // A client that retries an acquire whose answer was lost (a read timeout, a Cluster redirect) must learn
        // that it holds the lock, not hear "busy" while its first attempt holds it until the ttl.
        String name = fullName("retried");
        LockHolder holder = new LockHolder("contract-node", "main", "");
        Acquisition first = store.tryAcquire(name, "owner-1", holder, Duration.ofSeconds(30));
        Acquisition retried = store.tryAcquire(name, "owner-1", holder, Duration.ofSeconds(30));
        assertTrue(first instanceof Acquisition.Acquired, String.valueOf(first));
        assertTrue(retried instanceof Acquisition.Acquired, "a retry by the holder answers acquired: " + retried);
        assertEquals(
                ((Acquisition.Acquired) first).fence(),
                ((Acquisition.Acquired) retried).fence(),
                "the retry reports the hold it found, with its fence");
        assertTrue(store.tryAcquire(name, "owner-2", holder, Duration.ofSeconds(30)) instanceof Acquisition.Busy);
        assertTrue(store.release(name, "owner-1"));
        assertFalse(store.release(name, "owner-1"), "one hold, released once");
        assertTrue(store.inspect(name).isEmpty());
    }

    @Test
    void acquireBySameOwnerAfterExpiryIsANewHoldWithAGreaterFence() {
        String name = fullName("retried-late");
        LockHolder holder = new LockHolder("contract-node", "main", "");
        Acquisition first = store.tryAcquire(name, "owner-1", holder, shortTtl());
        assertTrue(first instanceof Acquisition.Acquired, String.valueOf(first));
        awaitTrue(() -> store.inspect(name).isEmpty(), shortTtl().multipliedBy(10));
        Acquisition again = store.tryAcquire(name, "owner-1", holder, Duration.ofSeconds(30));
        assertTrue(again instanceof Acquisition.Acquired, String.valueOf(again));
        assertTrue(((Acquisition.Acquired) again).fence() > ((Acquisition.Acquired) first).fence());
        assertTrue(store.release(name, "owner-1"));
    }

    @Test
    void differentNamesDoNotExcludeEachOther() {
        assertTrue(lock("imports:users").get());
        assertTrue(lock("imports:orders").get());
    }

    @Test
    void isLockedForNewAcquiredAndExpiredLocks() {
        Lock lock = registry.lock("isLocked", shortTtl());
        assertFalse(lock.isLocked());
        assertTrue(lock.get());
        assertTrue(lock.isLocked());
        assertTrue(lock("isLocked").isLocked());
        awaitTrue(() -> !lock.isLocked(), shortTtl().multipliedBy(10));
        assertTrue(lock.isExpired());
    }

    // ---------------------------------------------------------------- release

    @Test
    void releaseFreesTheLock() {
        Lock lock = lock("exports:nightly");
        assertTrue(lock.get());
        assertTrue(lock.release());
        assertFalse(lock.isLocked());
        assertTrue(lock("exports:nightly").get());
    }

    @Test
    void releaseByAnotherOwnerReturnsFalseAndKeepsTheLock() {
        Lock holder = lock("exports:nightly");
        assertTrue(holder.get());
        Lock other = lock("exports:nightly");
        assertFalse(other.get());
        assertFalse(other.release());
        assertTrue(holder.isLocked());
        assertTrue(holder.release());
    }

    @Test
    void releaseWithoutAcquiringReturnsFalse() {
        assertFalse(lock("exports:nightly").release());
    }

    @Test
    void secondReleaseReturnsFalse() {
        Lock lock = lock("exports:nightly");
        assertTrue(lock.get());
        assertTrue(lock.release());
        assertFalse(lock.release());
    }

    @Test
    void releaseAfterExpiryReturnsFalse() {
        Lock lock = registry.lock("expiring", shortTtl());
        assertTrue(lock.get());
        awaitTrue(() -> !lock.isLocked(), shortTtl().multipliedBy(10));
        assertFalse(lock.release());
    }

    @Test
    void releaseAfterExpiryDoesNotFreeTheNextHolder() {
        Lock first = registry.lock("expiring", shortTtl());
        assertTrue(first.get());
        awaitTrue(() -> !first.isLocked(), shortTtl().multipliedBy(10));
        Lock second = lock("expiring");
        assertTrue(second.get());
        assertFalse(first.release());
        assertTrue(second.isLocked());
    }

    @Test
    void expiredLockCanBeAcquiredByAnother() {
        Lock first = registry.lock("expiring", shortTtl());
        assertTrue(first.get());
        Lock second = lock("expiring");
        awaitTrue(second::get, shortTtl().multipliedBy(10));
        assertTrue(second.isLocked());
    }

    @Test
    void forceReleaseFreesAnotherHandlesLock() {
        Lock holder = lock("stuck");
        assertTrue(holder.get());
        assertTrue(lock("stuck").forceRelease());
        assertFalse(holder.isLocked());
        assertFalse(holder.release());
        assertTrue(lock("stuck").get());
    }

    @Test
    void forceReleaseOfAFreeLockReturnsFalse() {
        assertFalse(lock("free").forceRelease());
        assertFalse(registry.forceRelease("free"));
    }

    @Test
    void forceReleaseIsAuditedWithItsActorAndTheHoldItEnded() {
        Lock holder = registry.lock("audited", Duration.ofMinutes(1)).purpose("Imports#run");
        assertTrue(holder.get());
        Instant before = Instant.now();
        assertTrue(registry.forceRelease("audited", "alice"));

        AuditRecord record = registry.auditTrail(20).get(0);
        assertEquals(AuditRecord.Kind.FORCE_RELEASED, record.kind());
        assertEquals(fullName("audited"), record.lockName());
        assertEquals("alice", record.actor());
        assertEquals(holder.owner(), record.owner());
        assertEquals(holder.fence().getAsLong(), record.fence());
        assertEquals("contract-node", record.holder().instance());
        assertEquals(Thread.currentThread().getName(), record.holder().thread());
        assertEquals("Imports#run", record.holder().purpose());
        assertTrue(record.detail().startsWith("released"), record.detail());
        // the store's clock, which may differ from this JVM's by a little
        assertTrue(Duration.between(before, record.at()).abs().compareTo(Duration.ofMinutes(1)) < 0, record::toString);
    }

    @Test
    void auditTrailIsNewestFirstAndNamesAFreeLockWithoutAHold() {
        assertFalse(registry.forceRelease("first", "ops"));
        assertTrue(lock("second").get());
        assertTrue(registry.forceRelease("second", "ops"));
        assertFalse(lock("third").forceRelease());

        List<AuditRecord> trail = registry.auditTrail(20);
        assertEquals(
                List.of(fullName("third"), fullName("second"), fullName("first")),
                trail.stream().map(AuditRecord::lockName).limit(3).toList());
        assertFalse(trail.get(0).hasHold(), "nobody held 'third'");
        assertEquals(0, trail.get(0).fence());
        assertEquals("contract-node", trail.get(0).actor(), "the handle's force-release acts as the instance");
        assertTrue(trail.get(1).hasHold());
        assertTrue(
                trail.get(2).detail().startsWith("nothing to release"),
                trail.get(2).detail());
    }

    @Test
    void aListedForceReleaseAndTheHoldersLostLeaseAreBothAudited() {
        Lock holder = lock("listed-audit");
        assertTrue(holder.get());
        LockInfo seen = registry.liveLocks("listed-audit", 1).get(0);
        assertTrue(registry.forceRelease(seen, "bob"));
        assertFalse(holder.release(), "the holder finds its lease gone");

        List<AuditRecord> trail = registry.auditTrail(20);
        AuditRecord lost = trail.get(0);
        assertEquals(AuditRecord.Kind.LEASE_LOST, lost.kind());
        assertEquals(holder.owner(), lost.owner());
        assertEquals(seen.fence(), lost.fence());
        assertEquals("contract-node", lost.actor());
        AuditRecord forced = trail.get(1);
        assertEquals(AuditRecord.Kind.FORCE_RELEASED, forced.kind());
        assertEquals("bob", forced.actor());
        assertEquals(seen.fence(), forced.fence());
        assertEquals(seen.holder(), forced.holder());
    }

    @Test
    void anotherServerReadsTheAuditTrail() {
        assertTrue(lock("shared-audit").get());
        assertTrue(registry.forceRelease("shared-audit", "carol"));

        AuditRecord seen = peerRegistry().auditTrail(20).get(0);
        assertEquals(fullName("shared-audit"), seen.lockName());
        assertEquals("carol", seen.actor());
    }

    @Test
    void theAuditTrailSurvivesARestartWhereTheStoreSaysSo() {
        assertTrue(lock("restart-audit").get());
        assertTrue(registry.forceRelease("restart-audit", "dave"));
        store().close();

        List<AuditRecord> trail = newRegistry(createStore()).auditTrail(20);
        if (!auditSurvivesRestart()) {
            assertEquals(List.of(), trail, "a trail that lives in one instance starts empty in the next");
            return;
        }
        AuditRecord seen = trail.get(0);
        assertEquals(fullName("restart-audit"), seen.lockName());
        assertEquals("dave", seen.actor());
    }

    @Test
    void theAuditTrailKeepsOnlyItsNewestRecords() {
        Optional<LockStore> bounded = createStore(new AuditLimits(5, Duration.ofDays(7)));
        Assumptions.assumeTrue(bounded.isPresent(), "this store's audit trail cannot be bounded from a test");
        LockRegistry small = newRegistry(bounded.get());
        for (int i = 0; i < 8; i++) {
            assertFalse(small.forceRelease("bounded-" + i, "ops"));
        }

        List<AuditRecord> trail = bounded.get().auditTrail(100);
        assertTrue(trail.size() <= 5, "at most 5 records kept, got " + trail.size());
        assertEquals(
                List.of(7, 6, 5, 4, 3).stream()
                        .map(i -> fullName("bounded-" + i))
                        .toList(),
                small.auditTrail(100).stream().map(AuditRecord::lockName).toList());
    }

    @Test
    void forcingAListedHoldLeavesALaterHolderAlone() {
        Lock first = lock("listed");
        assertTrue(first.get());
        LockInfo seen = registry.liveLocks("listed", 1).get(0);
        assertTrue(first.release());
        Lock second = lock("listed");
        assertTrue(second.get());
        assertFalse(registry.forceRelease(seen), "the listed hold had ended");
        assertTrue(second.isLocked());
    }

    @Test
    void forcingAListedHoldLeavesTheSameHandlesNextHoldAlone() {
        Lock reused = lock("listed-again"); // a handle kept in a field and used for one job after another
        assertTrue(reused.get());
        LockInfo seen = registry.liveLocks("listed-again", 1).get(0);
        assertTrue(reused.release());
        assertTrue(reused.get(), "the same handle, the same owner id, a new hold");
        long newer = reused.fence().orElseThrow();

        assertFalse(registry.forceRelease(seen, "erin"), "the listed hold had ended");

        LockInfo now = registry.liveLocks("listed-again", 1).get(0);
        assertEquals(newer, now.fence(), "the newer hold stays");
        assertTrue(reused.release());
        AuditRecord forced = registry.auditTrail(1).get(0);
        assertEquals(seen.fence(), forced.fence());
        assertTrue(forced.detail().startsWith("nothing released"), forced.detail());
    }

    @Test
    void registryForceReleasesByNameAndByListedLock() {
        assertTrue(lock("by-name").get());
        assertTrue(registry.forceRelease("by-name"));
        assertTrue(lock("by-info").get());
        LockInfo info = registry.liveLocks("by-info", 10).get(0);
        assertTrue(peerRegistry().forceRelease(info));
        assertFalse(lock("by-info").isLocked());
    }

    // ---------------------------------------------------------------- ttl and extension

    @Test
    void customTtlIsHonoured() {
        Lock shortLived = registry.lock("short", shortTtl());
        Lock longLived = registry.lock("long", Duration.ofSeconds(60));
        assertTrue(shortLived.get());
        assertTrue(longLived.get());
        Duration remaining = registry.liveLocks("long", 1).get(0).remaining();
        assertTrue(
                remaining.compareTo(Duration.ofSeconds(50)) > 0 && remaining.compareTo(Duration.ofSeconds(60)) <= 0,
                "a 60 s lease has about 60 s left, got " + remaining);
        awaitTrue(() -> !shortLived.isLocked(), shortTtl().multipliedBy(10));
        assertTrue(longLived.isLocked());
    }

    @Test
    void ttlInSecondsIsHonoured() {
        Lock lock = registry.lock("seconds", 90);
        assertEquals(Duration.ofSeconds(90), lock.ttl());
        assertTrue(lock.get());
        Duration remaining = registry.liveLocks("seconds", 1).get(0).remaining();
        assertTrue(remaining.compareTo(Duration.ofSeconds(80)) > 0, "got " + remaining);
    }

    @Test
    void extendProlongsTheLease() throws InterruptedException {
        Lock lock = registry.lock("extended", shortTtl());
        assertTrue(lock.get());
        assertTrue(lock.extend(Duration.ofSeconds(60)));
        Thread.sleep(shortTtl().multipliedBy(2).toMillis()); // the original lease would be over by now
        assertTrue(lock.isLocked());
        assertFalse(lock.isExpired());
        assertTrue(lock.remaining().orElseThrow().compareTo(Duration.ofSeconds(50)) > 0);
        assertTrue(lock.extend(), "extend() renews for the handle's own ttl");
        assertTrue(lock.release());
    }

    @Test
    void extendKeepsTheFence() {
        Lock lock = lock("extended");
        assertTrue(lock.get());
        long fence = lock.fence().getAsLong();
        assertTrue(lock.extend());
        assertEquals(fence, lock.fence().getAsLong());
        assertEquals(fence, registry.liveLocks("extended", 1).get(0).fence());
    }

    @Test
    void extendFailsWhenNotHeld() {
        Lock lock = lock("extended");
        assertFalse(lock.extend(), "never acquired");
        assertTrue(lock.get());
        assertTrue(lock.release());
        assertFalse(lock.extend(), "released");

        Lock expiring = registry.lock("extended-expiring", shortTtl());
        assertTrue(expiring.get());
        awaitTrue(() -> !expiring.isLocked(), shortTtl().multipliedBy(10));
        assertFalse(expiring.extend(), "expired");

        Lock forced = lock("extended-forced");
        assertTrue(forced.get());
        assertTrue(lock("extended-forced").forceRelease());
        assertTrue(lock("extended-forced").get());
        assertFalse(forced.extend(), "held by someone else");
    }

    @Test
    void autoExtendKeepsTheLeaseWhileWorkRuns() throws InterruptedException {
        Lock lock = registry.lock("auto", shortTtl()).autoExtend();
        LockResult<String> result = lock.get(() -> {
            Thread.sleep(shortTtl().multipliedBy(4).toMillis());
            assertTrue(lock("auto").isLocked(), "still held after four ttls");
            assertFalse(lock("auto").get());
            assertFalse(lock.isExpired());
            return "done";
        });
        assertEquals("done", result.value());
        assertFalse(lock.isLocked(), "released when the work ends");
    }

    @Test
    void autoExtendReportsALostLease() {
        Lock lock = registry.lock("auto-lost", shortTtl()).autoExtend();
        assertTrue(lock.get());
        assertTrue(lock("auto-lost").forceRelease());
        awaitTrue(lock::isExpired, shortTtl().multipliedBy(10));
        assertTrue(lock.fence().isEmpty());
        assertFalse(lock.release());
    }

    // ---------------------------------------------------------------- restore

    @Test
    void restoreFromATokenInAnotherRegistryThenRelease() {
        Lock lock = lock("imports:users");
        assertTrue(lock.get());
        Lock restored = peerRegistry().restore(lock.token());
        assertEquals(lock.name(), restored.name());
        assertEquals(lock.owner(), restored.owner());
        assertEquals(lock.ttl(), restored.ttl());
        assertEquals(lock.fence(), restored.fence());
        assertTrue(restored.remaining().isPresent());
        assertTrue(restored.extend());
        assertTrue(restored.release());
        assertFalse(lock.isLocked());
        assertFalse(lock.release());
    }

    @Test
    void restoredHandleOfAnUnheldLockHoldsNothing() {
        Lock lock = lock("imports:users");
        Lock restored = registry.restore(lock.token());
        assertTrue(restored.fence().isEmpty());
        assertFalse(restored.release());
        assertTrue(lock("imports:users").get());
        assertFalse(registry.restore(lock.token()).release(), "someone else holds it now");
    }

    @Test
    void badTokensAreRejected() {
        for (String token : new String[] {
            null,
            "",
            "x1",
            "x1.a.b.c.d",
            "not a token",
            "x1.Y29udHJhY3Q.bmFtZQ..1000",
            "x1.Y29udHJhY3Q.bmFtZQ.b3duZXI.-5",
            "x1.Y29udHJhY3Q.bmEAbWU.b3duZXI.1000", // a name no lock can have (a control character)
            "x1.Y29udHJhY3Q.bmFtZQ.b3duZXI.9223372036854775807" // a ttl beyond the longest
        }) {
            assertThrows(InvalidLockTokenException.class, () -> registry.restore(token), String.valueOf(token));
        }
        LockRegistry elsewhere = LockRegistry.builder()
                .store("elsewhere", createPeerStore(store))
                .build();
        registries.add(elsewhere);
        String foreign = elsewhere.lock("x", 10).token();
        UnknownStoreException unknown = assertThrows(UnknownStoreException.class, () -> registry.restore(foreign));
        assertTrue(
                unknown.getMessage().contains("elsewhere")
                        && unknown.getMessage().contains(STORE),
                unknown.getMessage());
    }

    // ---------------------------------------------------------------- work under the lock

    @Test
    void getWithWorkReturnsTheResultAndReleases() {
        Lock lock = lock("reports:daily");
        LockResult<String> result = lock.get(() -> {
            assertTrue(lock("reports:daily").isLocked());
            return "rebuilt";
        });
        assertTrue(result.acquired());
        assertEquals("rebuilt", result.value());
        assertFalse(lock.isLocked());
    }

    @Test
    void getWithWorkDoesNotRunWhenBusy() {
        assertTrue(lock("reports:daily").get());
        AtomicBoolean ran = new AtomicBoolean();
        LockResult<String> result = lock("reports:daily").get(() -> {
            ran.set(true);
            return "rebuilt";
        });
        assertFalse(result.acquired());
        assertFalse(ran.get());
        assertEquals("skipped", result.orElse("skipped"));
        assertThrows(IllegalStateException.class, result::value);
    }

    @Test
    void getWithWorkRethrowsRuntimeExceptionsAndReleases() {
        Lock lock = lock("reports:daily");
        IllegalStateException thrown = new IllegalStateException("report failed");
        IllegalStateException caught = assertThrows(
                IllegalStateException.class,
                () -> lock.get(() -> {
                    throw thrown;
                }));
        assertSame(thrown, caught);
        assertFalse(lock.isLocked());
    }

    @Test
    void getWithWorkRethrowsCheckedExceptionsUnchangedAndReleases() {
        Lock lock = lock("reports:daily");
        IOException thrown = new IOException("disk full");
        IOException caught = assertThrows(
                IOException.class,
                () -> lock.get(() -> {
                    throw thrown;
                }));
        assertSame(thrown, caught);
        assertFalse(lock.isLocked());
    }

    @Test
    void getWithTaskRunsIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        assertTrue(lock("task").get(() -> {
            runs.incrementAndGet();
        }));
        assertTrue(lock("task").block(Duration.ofSeconds(1), () -> {
            runs.incrementAndGet();
        }));
        assertEquals(2, runs.get());
        assertFalse(lock("task").isLocked());
    }

    @Test
    void blockWithWorkRethrowsAndReleases() {
        Lock lock = lock("imports:users");
        IOException thrown = new IOException("import failed");
        assertSame(
                thrown,
                assertThrows(
                        IOException.class,
                        () -> lock.block(Duration.ofSeconds(1), () -> {
                            throw thrown;
                        })));
        assertFalse(lock.isLocked());
    }

    // ---------------------------------------------------------------- waiting

    @Test
    void blockAcquiresAFreeLockAtOnce() {
        assertTrue(lock("imports:users").block(Duration.ofSeconds(5)));
    }

    /**
     * A wake-up, not a poll, ends the wait. The handoff also holds the store's own acquisition, which a loaded
     * machine can stall (a database commit waits for its disk): a slow first handoff is measured once more, on
     * another name, and the faster of the two must be far below a polling interval. A store that only polls is fast
     * by chance rarely, and twice in a row more rarely still.
     */
    @Test
    void blockReturnsSoonAfterTheHolderReleases() throws Exception {
        long first = handoffMillis("imports:users");
        if (first < maxHandoff().toMillis()) {
            return;
        }
        long second = handoffMillis("imports:orders");
        assertTrue(
                second < maxHandoff().toMillis(),
                "the waiter woke " + first + " ms, then " + second
                        + " ms after the release; a wake-up should take far less than a polling interval");
    }

    /** @return how long a waiter blocked on {@code name} took to return after its holder released it */
    private long handoffMillis(String name) throws Exception {
        Lock holder = lock(name);
        assertTrue(holder.get());
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = executor().submit(() -> {
            waiting.countDown();
            assertTrue(lock(name).block(Duration.ofSeconds(20)));
            return System.nanoTime();
        });
        waiting.await();
        Thread.sleep(1_500); // long enough for any backoff to reach its longest pause
        long releasedAt = System.nanoTime();
        assertTrue(holder.release());
        return TimeUnit.NANOSECONDS.toMillis(waiter.get(10, TimeUnit.SECONDS) - releasedAt);
    }

    /** @return the loosest handoff the wake-up test accepts: far below a 250 ms polling interval */
    protected Duration maxHandoff() {
        return Duration.ofMillis(120);
    }

    @Test
    void blockWakesWhenTheHoldersLeaseExpires() {
        assertTrue(registry.lock("imports:users", shortTtl()).get());
        long start = System.nanoTime();
        assertTrue(lock("imports:users").block(Duration.ofSeconds(20)));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited < shortTtl().toMillis() + 1_000, "waited " + waited + " ms for a " + shortTtl() + " lease");
    }

    @Test
    void blockGivesUpAfterTheWait() {
        assertTrue(lock("imports:users").get());
        long start = System.nanoTime();
        assertFalse(lock("imports:users").block(Duration.ofMillis(300)));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= 290 && waited < 3_000, "waited " + waited + " ms for 300 ms");
    }

    @Test
    void blockWithZeroWaitIsOneAttempt() {
        assertTrue(lock("imports:users").get());
        long start = System.nanoTime();
        assertFalse(lock("imports:users").block(Duration.ZERO));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 1_000);
        assertTrue(lock("imports:other").block(Duration.ZERO));
    }

    @Test
    void blockHonoursInterrupts() throws Exception {
        assertTrue(lock("imports:users").get());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flagRestored = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try {
                lock("imports:users").block(Duration.ofSeconds(60));
            } catch (Throwable e) {
                failure.set(e);
                flagRestored.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        Thread.sleep(200);
        waiter.interrupt();
        waiter.join(10_000);
        assertFalse(waiter.isAlive());
        assertTrue(failure.get() instanceof LockInterruptedException, String.valueOf(failure.get()));
        assertTrue(flagRestored.get(), "the interrupt flag is set again");
    }

    @Test
    void releaseExtendAndForceReleaseWorkWithTheInterruptFlagSetAndLeaveItSet() {
        // Work that is interrupted restores the flag, as it should, and then releases in a finally block: the
        // release must still reach the store, or the lock stays held for its whole ttl.
        Lock lock = lock("interrupted");
        Lock other = lock("interrupted-forced");
        try {
            Thread.currentThread().interrupt();
            assertTrue(lock.get(), "one attempt works with the flag set");
            assertTrue(Thread.currentThread().isInterrupted(), "get leaves the flag set");
            assertTrue(lock.extend(), "extend works with the flag set");
            assertTrue(Thread.currentThread().isInterrupted(), "extend leaves the flag set");
            assertTrue(lock.isLocked());
            assertTrue(Thread.currentThread().isInterrupted(), "isLocked leaves the flag set");
            assertTrue(lock.release(), "release works with the flag set");
            assertTrue(Thread.currentThread().isInterrupted(), "release leaves the flag set");

            assertTrue(other.get());
            assertTrue(lock("interrupted-forced").forceRelease(), "force-release works with the flag set");
            assertTrue(Thread.currentThread().isInterrupted(), "force-release leaves the flag set");
        } finally {
            Thread.interrupted();
        }
        assertFalse(lock("interrupted").isLocked(), "really released");
        assertFalse(lock("interrupted-forced").isLocked(), "really force-released");
    }

    @Test
    void workThatRestoresTheInterruptFlagStillReleases() {
        Lock lock = lock("interrupted-work");
        try {
            assertTrue(lock.get(() -> {
                        Thread.currentThread().interrupt();
                        return "done";
                    })
                    .acquired());
            assertTrue(Thread.currentThread().isInterrupted(), "the work's flag is left as the work set it");
        } finally {
            Thread.interrupted();
        }
        assertFalse(lock("interrupted-work").isLocked(), "released although the flag was set");
    }

    // ---------------------------------------------------------------- minimum hold

    /** @return a minimum hold long enough to see the lock still held after a release, short enough to wait out */
    protected Duration minHold() {
        return Duration.ofMillis(800);
    }

    @Test
    void releaseBeforeTheMinimumHoldKeepsTheLockUntilTheFloorThenFreesIt() {
        long before = System.nanoTime();
        Lock short_ = registry.lock("min-hold", Duration.ofSeconds(30)).minHold(minHold());
        assertTrue(short_.get());
        long fence = short_.fence().getAsLong();
        assertTrue(short_.release(), "the release is accepted");
        assertTrue(short_.fence().isEmpty(), "the handle holds nothing any more");
        Lock next = lock("min-hold");
        assertFalse(next.get(), "still held until acquisition + minHold");
        Duration left = next.busyFor().orElseThrow();
        // Stores count whole milliseconds and keep a lease through its last one (Redis with 2 ms of slack), so
        // an answer within the acquisition's millisecond may be up to 2 ms above the floor.
        assertTrue(
                left.compareTo(minHold().plusMillis(2)) <= 0,
                "the lease was shortened to the floor (store clock granularity allowed): " + left);
        awaitTrue(next::get, minHold().multipliedBy(10));
        long heldNanos = System.nanoTime() - before;
        assertTrue(
                heldNanos >= minHold().minusMillis(20).toNanos(),
                "free only after the floor (store clock granularity allowed): " + Duration.ofNanos(heldNanos));
        assertTrue(next.fence().getAsLong() > fence, "the fence still grows");
    }

    /**
     * A thread already blocked on the lock learns of the shorter lease: it gets the lock soon after the floor, not
     * at the end of the 30 s lease it saw when it began to wait.
     */
    @Test
    void aWaiterBlockedBeforeAReleaseWithAMinimumHoldGetsTheLockSoonAfterTheFloor() throws Exception {
        Lock holder = registry.lock("min-hold-waited", Duration.ofSeconds(30)).minHold(minHold());
        assertTrue(holder.get());
        Lock waiter = lock("min-hold-waited");
        long started = System.nanoTime();
        CompletableFuture<Boolean> got = CompletableFuture.supplyAsync(() -> waiter.block(Duration.ofSeconds(20)));
        awaitTrue(() -> waiter.busyFor().isPresent() || got.isDone(), Duration.ofSeconds(5));
        assertTrue(holder.release(), "the release is accepted, the lease shortened to the floor");

        assertTrue(got.get(25, TimeUnit.SECONDS), "the waiter gets the lock");
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(
                waitedMillis < minHold().toMillis() + 3_000,
                "got it " + waitedMillis + " ms after it began to wait; the floor was "
                        + minHold().toMillis() + " ms after the acquisition, the old lease 30 s");
        waiter.release();
    }

    @Test
    void releaseAfterTheMinimumHoldFreesAtOnce() throws InterruptedException {
        Lock lock = registry.lock("min-hold-past", Duration.ofSeconds(30)).minHold(Duration.ofMillis(100));
        assertTrue(lock.get());
        Thread.sleep(300); // let the floor pass
        assertTrue(lock.release());
        assertTrue(lock("min-hold-past").get(), "past its floor, a release frees the lock");
    }

    @Test
    void forceReleaseIgnoresTheMinimumHold() {
        Lock lock = registry.lock("min-hold-forced", Duration.ofSeconds(60)).minHold(Duration.ofSeconds(30));
        assertTrue(lock.get());
        assertTrue(lock("min-hold-forced").forceRelease());
        assertTrue(lock("min-hold-forced").get(), "an operator's force-release frees it at once");
    }

    @Test
    void releaseWithAFloorLeavesAnotherOwnersLockAlone() {
        String name = fullName("min-hold-other");
        LockHolder holder = new LockHolder("contract-node", "main", "");
        assertTrue(store.tryAcquire(name, "owner-1", holder, Duration.ofSeconds(30))
                .acquired());
        assertFalse(store.release(name, "owner-2", Duration.ofSeconds(1)));
        assertFalse(store.release(fullName("min-hold-free"), "owner-1", Duration.ofSeconds(1)), "a free lock");
        assertEquals("owner-1", store.inspect(name).orElseThrow().owner());
        Duration remaining = store.inspect(name).orElseThrow().remaining();
        assertTrue(remaining.compareTo(Duration.ofSeconds(20)) > 0, "untouched: " + remaining);
    }

    @Test
    void aMinimumHoldLongerThanTheTtlIsRejected() {
        InvalidLockDurationException e = assertThrows(
                InvalidLockDurationException.class,
                () -> registry.lock("min-hold-long", Duration.ofSeconds(1)).minHold(Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("min-hold-long") && e.getMessage().contains("PT2S"), e.getMessage());
        assertThrows(
                InvalidLockDurationException.class,
                () -> registry.lock("min-hold-negative", Duration.ofSeconds(1)).minHold(Duration.ofMillis(-1)));
    }

    @Test
    void isHeldAsksTheStoreForThisOwner() {
        Lock lock = lock("is-held");
        assertFalse(lock.isHeld());
        assertTrue(lock.get());
        assertTrue(lock.isHeld());
        assertFalse(lock("is-held").isHeld(), "another handle holds it");
        assertTrue(lock("is-held").forceRelease());
        assertFalse(lock.isHeld(), "gone after a force-release");
        assertTrue(lock.isExpired(), "and the handle knows it");
    }

    // ---------------------------------------------------------------- fencing

    @Test
    void fencesStrictlyIncreaseAcrossAcquirersReleasesAndExpiry() {
        List<Long> fences = new ArrayList<>();
        LockRegistry peer = peerRegistry();
        for (int round = 0; round < 3; round++) {
            Lock mine = lock("fenced");
            assertTrue(mine.get());
            fences.add(mine.fence().getAsLong());
            assertTrue(mine.release());

            Lock theirs = peer.lock("fenced", Duration.ofSeconds(30));
            assertTrue(theirs.get());
            fences.add(theirs.fence().getAsLong());
            assertTrue(theirs.forceRelease());
        }
        Lock expiring = registry.lock("fenced", shortTtl());
        assertTrue(expiring.get());
        fences.add(expiring.fence().getAsLong());
        Lock next = lock("fenced");
        awaitTrue(next::get, shortTtl().multipliedBy(10));
        fences.add(next.fence().getAsLong());
        for (int i = 1; i < fences.size(); i++) {
            assertTrue(fences.get(i) > fences.get(i - 1), "fences must strictly increase: " + fences);
        }
    }

    @Test
    void fenceIsEmptyAfterRelease() {
        Lock lock = lock("fenced");
        assertTrue(lock.get());
        assertTrue(lock.release());
        assertTrue(lock.fence().isEmpty());
    }

    // ---------------------------------------------------------------- inspection

    @Test
    void liveLocksShowHolderAndExpiryAndLeaveOutExpiredOnes() throws InterruptedException {
        Lock held = lock("live:held").purpose("Reports#rebuild");
        assertTrue(held.get());
        assertTrue(registry.lock("live:expired", shortTtl()).get());
        assertTrue(lock("live:released").get());
        assertTrue(registry.forceRelease("live:released"));
        Thread.sleep(shortTtl().multipliedBy(2).toMillis());

        List<LockInfo> live = registry.liveLocks("live:", 100);
        assertEquals(1, live.size(), String.valueOf(live));
        LockInfo info = live.get(0);
        assertEquals(STORE, info.store());
        assertEquals(held.name(), info.name());
        assertEquals(held.owner(), info.owner());
        assertEquals("contract-node", info.holder().instance());
        assertEquals(Thread.currentThread().getName(), info.holder().thread());
        assertEquals("Reports#rebuild", info.holder().purpose());
        assertEquals(held.fence().getAsLong(), info.fence());
        assertTrue(info.expiresAt().isAfter(info.acquiredAt()));
        Duration lease = Duration.between(info.acquiredAt(), info.expiresAt());
        assertTrue(Math.abs(lease.minus(held.ttl()).toMillis()) < 1_000, "lease " + lease);
    }

    @Test
    void liveLocksHonourTheLimitAndSortByName() {
        for (int i = 0; i < 7; i++) {
            assertTrue(lock("many:" + i).get());
        }
        assertEquals(7, registry.liveLocks("many:", 100).size());
        assertEquals(3, registry.liveLocks("many:", 3).size());
        List<LockInfo> all = registry.liveLocks("", 100);
        assertEquals(7, all.size(), "only this test's locks carry its prefix");
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i - 1).name().compareTo(all.get(i).name()) < 0);
        }
        assertThrows(IllegalArgumentException.class, () -> registry.liveLocks("", 0));
    }

    @Test
    void liveLocksTakeThePrefixLiterally() {
        for (String name : new String[] {"glob*", "globby", "q?", "qx", "[ab]", "a", "back\\slash", "backxslash"}) {
            assertTrue(lock(name).get(), name);
        }
        assertEquals(List.of(prefix + "glob*"), names(registry.liveLocks("glob*", 10)));
        assertEquals(List.of(prefix + "q?"), names(registry.liveLocks("q?", 10)));
        assertEquals(List.of(prefix + "[ab]"), names(registry.liveLocks("[", 10)));
        assertEquals(List.of(prefix + "back\\slash"), names(registry.liveLocks("back\\", 10)));
    }

    // ---------------------------------------------------------------- names and durations

    @Test
    void badNamesAreRejected() {
        for (String name : new String[] {
            null,
            "",
            "   ",
            "\t",
            "line\nbreak",
            "nul\u0000",
            "bell\u0007",
            "x".repeat(201),
            "a\uD800",
            "\uDC00b",
            "a\uDC00\uD800b",
            "\uD83D"
        }) {
            InvalidLockNameException e = assertThrows(
                    InvalidLockNameException.class,
                    () -> registry.lock(name, Duration.ofSeconds(1)),
                    String.valueOf(name));
            assertTrue(e.getMessage().contains(STORE), e.getMessage());
        }
        assertEquals(
                prefix + "x".repeat(200), registry.lock("x".repeat(200), 10).name());
    }

    @Test
    void oddNamesAreAcceptedAndDistinct() {
        String[] names = {
            "x".repeat(200),
            "импорт:пользователи",
            "レポート",
            "emoji-\uD83D\uDD12",
            "*",
            "?",
            "[a]",
            "a",
            "a/b",
            "a\\b",
            "..",
            "../x",
            "/etc/passwd",
            "C:\\x",
            "a b",
            "A",
            "a*",
            "ab",
            "%2e%2e",
            "{0}",
            "a?",
            "a\uFFFD"
        };
        List<Lock> held = new ArrayList<>();
        for (String name : names) {
            Lock lock = lock(name);
            assertTrue(lock.get(), "'" + name + "' is free: no other name maps onto it");
            held.add(lock);
        }
        for (String name : names) {
            assertFalse(lock(name).get(), "'" + name + "' is held");
        }
        assertEquals(names.length, registry.liveLocks("", 100).size());
        for (Lock lock : held) {
            assertTrue(lock.release(), lock.name());
        }
    }

    @Test
    void invalidDurationsAreRejectedNamingTheLockAndValue() {
        for (Duration ttl : new Duration[] {
            null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999), Duration.ofSeconds(Long.MAX_VALUE)
        }) {
            InvalidLockDurationException e = assertThrows(
                    InvalidLockDurationException.class, () -> registry.lock("imports:users", ttl), String.valueOf(ttl));
            assertTrue(
                    e.getMessage().contains("imports:users") && e.getMessage().contains(String.valueOf(ttl)),
                    e.getMessage());
            assertEquals(prefix + "imports:users", e.lockName().orElseThrow());
        }
        assertThrows(InvalidLockDurationException.class, () -> registry.lock("imports:users", 0));
        assertThrows(InvalidLockDurationException.class, () -> registry.lock("imports:users", -5));
        assertThrows(InvalidLockDurationException.class, () -> registry.lock("imports:users", Long.MAX_VALUE));

        Lock lock = lock("imports:users");
        for (Duration wait : new Duration[] {null, Duration.ofMillis(-1), Duration.ofSeconds(Long.MAX_VALUE)}) {
            InvalidLockDurationException e = assertThrows(InvalidLockDurationException.class, () -> lock.block(wait));
            assertTrue(e.getMessage().contains("wait"), e.getMessage());
        }
        assertFalse(lock.isLocked(), "a rejected call acquires nothing");
        assertTrue(lock.get());
        assertThrows(InvalidLockDurationException.class, () -> lock.extend(Duration.ZERO));
        assertTrue(lock.isLocked(), "a rejected extend loses nothing");
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void manyThreadsNeverOverlap() throws Exception {
        int threads = contentionThreads();
        int rounds = contentionRounds();
        int[] counter = {0}; // deliberately not atomic: the lock alone must protect it
        AtomicBoolean inside = new AtomicBoolean();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = executor(threads);
        List<Future<?>> futures = new ArrayList<>();
        LockRegistry peer = peerRegistry();
        for (int t = 0; t < threads; t++) {
            LockRegistry mine = t % 2 == 0 ? registry : peer;
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < rounds; i++) {
                    LockResult<Void> result = mine.lock("counter", Duration.ofSeconds(30))
                            .block(Duration.ofSeconds(60), () -> {
                                if (!inside.compareAndSet(false, true)) {
                                    overlaps.incrementAndGet();
                                }
                                counter[0]++;
                                inside.set(false);
                                return null;
                            });
                    if (!result.acquired()) {
                        fail("a waiter gave up after 60 s");
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : futures) {
            future.get(110, TimeUnit.SECONDS);
        }
        assertEquals(0, overlaps.get(), "two holders were inside at once");
        assertEquals(threads * rounds, counter[0], "lost updates");
    }

    @Test
    void concurrentGetHasExactlyOneWinner() throws Exception {
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = executor(threads);
        List<Future<Boolean>> attempts = new ArrayList<>();
        LockRegistry peer = peerRegistry();
        for (int t = 0; t < threads; t++) {
            LockRegistry mine = t % 2 == 0 ? registry : peer;
            attempts.add(pool.submit(() -> {
                start.await();
                return mine.lock("race", Duration.ofSeconds(30)).get();
            }));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> attempt : attempts) {
            winners += attempt.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertEquals(1, winners);
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> names(List<LockInfo> locks) {
        return locks.stream().map(LockInfo::name).toList();
    }

    private ExecutorService executor() {
        return executor(1);
    }

    private ExecutorService executor(int threads) {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        executors.add(executor);
        return executor;
    }

    /** Polls {@code condition} until it holds, failing after {@code max}. */
    public static void awaitTrue(BooleanSupplier condition, Duration max) {
        awaitTrue(condition, max, "condition");
    }

    /**
     * Polls {@code condition} every 10 ms until it holds, failing after {@code max} with {@code what}. Public, as
     * the other one, for lock-api's tests that need no store contract.
     */
    public static void awaitTrue(BooleanSupplier condition, Duration max, String what) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " not met within " + max);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}

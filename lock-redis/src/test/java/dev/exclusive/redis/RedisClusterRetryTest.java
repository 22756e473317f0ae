package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/**
 * A lost reply on Redis Cluster, for real: a one-node cluster on port 7130 announces itself at a
 * {@link FaultyProxy}, so every connection of the store's Cluster client goes through the proxy. The proxy
 * lets the acquire script reach Redis (which takes the lock) and loses its reply; the client times out on the read
 * and, as Jedis's Cluster executor does after a connection failure, sends the script again on a new connection.
 * That second run finds the caller's own hold. The same resending after a release, a release with a minimum
 * hold or a force-release, whose first run freed the lock, must still answer that the call freed it: a release
 * that succeeded, reported as refused, tells the application that its hold had ended when it had not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisClusterRetryTest {

    private static final int PORT = 7130;
    private static final LockHolder HOLDER = new LockHolder("retry-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static ProxiedCluster cluster;

    @BeforeAll
    static void startClusterBehindProxy() throws IOException, InterruptedException {
        cluster = ProxiedCluster.start(PORT);
    }

    @AfterAll
    static void stopCluster() throws IOException, InterruptedException {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** @return a store on the proxied cluster whose reads time out after {@code socketTimeout} */
    private static LockStore store(String socketTimeout) {
        LockStore store = new RedisLockStoreProvider()
                .create(
                        "retry",
                        Map.of("nodes", cluster.seed(), "connect-timeout", "2s", "socket-timeout", socketTimeout));
        // the scripts are loaded first, so the lost reply is that of a script that ran, not a NOSCRIPT error
        assertTrue(store.tryAcquire("retry:warm-up", "owner-0", HOLDER, TTL).acquired());
        assertTrue(store.extend("retry:warm-up", "owner-0", TTL));
        assertTrue(store.release("retry:warm-up", "owner-0", Duration.ofMillis(1)));
        assertTrue(store.tryAcquire("retry:warm-up", "owner-0", HOLDER, TTL).acquired());
        assertTrue(store.release("retry:warm-up", "owner-0"));
        assertTrue(store.tryAcquire("retry:warm-up", "owner-0", HOLDER, TTL).acquired());
        assertTrue(store.forceRelease("retry:warm-up"));
        return store;
    }

    @Test
    void anAcquireResentAfterALostReplyAnswersAcquiredWithTheHoldItTook() {
        try (LockStore store = store("500ms")) {
            String name = "retry:lost-reply";
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            Acquisition outcome = store.tryAcquire(name, "owner-1", HOLDER, TTL);

            assertEquals(
                    lostBefore + 1,
                    cluster.proxy().lostReplies(),
                    "the first reply was lost, so the client sent the script again");
            Acquisition.Acquired acquired = assertInstanceOf(
                    Acquisition.Acquired.class,
                    outcome,
                    "the caller holds the lock, so it must not hear busy from its own retry");
            LockEntry held = store.inspect(name).orElseThrow();
            assertEquals("owner-1", held.owner());
            assertEquals(held.fence(), acquired.fence(), "the answer carries the fence of the hold Redis keeps");
            // acquire.lua reads no clock: the answer's time is this JVM's estimate of the Redis clock at the reply
            // minus the time held by the lease's own count, inspect's is TIME minus that count
            assertTrue(
                    Duration.between(held.acquiredAt(), acquired.acquiredAt())
                                    .abs()
                                    .toMillis()
                            <= 50,
                    "and its acquisition time: " + held.acquiredAt() + ", answered " + acquired.acquiredAt());
            assertFalse(store.tryAcquire(name, "owner-2", HOLDER, TTL).acquired(), "others still find it busy");
            assertTrue(store.release(name, "owner-1"), "the caller can release what it was told it holds");
        }
    }

    @Test
    void aReleaseResentAfterALostReplyAnswersReleased() {
        try (LockStore store = store("500ms")) {
            String name = "retry:lost-release";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, TTL).acquired());
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            boolean released = store.release(name, "owner-1");

            assertEquals(
                    lostBefore + 1,
                    cluster.proxy().lostReplies(),
                    "the first reply was lost, so the client sent the script again");
            assertTrue(released, "the first run freed the lock: the caller's release succeeded, it was not refused");
            assertTrue(store.inspect(name).isEmpty(), "and the lock is free");
            try (Jedis node = new Jedis(RedisServers.HOST, PORT)) {
                Set<String> receipts = node.keys(RedisKeys.globEscape("exclusive:receipt:{" + name + "}") + "*");
                assertEquals(1, receipts.size(), "one receipt, of the one call: " + receipts);
                long kept = node.pttl(receipts.iterator().next());
                assertTrue(
                        kept > 0 && kept <= 2 * (2_000 + 500),
                        "kept no longer than the client may resend: twice connect + socket timeout, got " + kept);
            }
            assertFalse(store.release(name, "owner-1"), "a later release of the same owner, a new call, is refused");
        }
    }

    @Test
    void aReleaseResentAfterAnotherOwnerTookAndFreedTheLockMeanwhileStillAnswersReleased() throws Exception {
        // 2 s for the read: room for another owner's acquire and release between the lost reply and the resend
        try (LockStore store = store("2s");
                LockStore other = store("2s")) {
            String name = "retry:lost-release-then-another";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, TTL).acquired());
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));
            CompletableFuture<Boolean> released = CompletableFuture.supplyAsync(() -> store.release(name, "owner-1"));
            RedisServers.awaitTrue(
                    () -> cluster.proxy().lostReplies() == lostBefore + 1
                            && other.inspect(name).isEmpty(),
                    Duration.ofSeconds(2),
                    "the first release ran and its reply was lost");

            assertTrue(other.tryAcquire(name, "owner-2", HOLDER, TTL).acquired(), "the freed lock is taken again");
            assertTrue(other.release(name, "owner-2"));
            assertFalse(released.isDone(), "all this happened while the first caller still waited for its reply");

            assertTrue(released.get(10, TimeUnit.SECONDS), "the first caller's release succeeded all the same");
        }
    }

    @Test
    void aReleaseWithAMinimumHoldResentAfterALostReplyAnswersReleased() {
        try (LockStore store = store("500ms")) {
            String name = "retry:lost-release-after";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, TTL).acquired());
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            boolean released = store.release(name, "owner-1", Duration.ofMillis(1));

            assertEquals(lostBefore + 1, cluster.proxy().lostReplies());
            assertTrue(released, "the first run freed the lock, past its minimum hold");
            assertTrue(store.inspect(name).isEmpty());
        }
    }

    @Test
    void aForceReleaseResentAfterALostReplyAnswersReleased() {
        try (LockStore store = store("500ms")) {
            String name = "retry:lost-force-release";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, TTL).acquired());
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            boolean released = store.forceRelease(name);

            assertEquals(lostBefore + 1, cluster.proxy().lostReplies());
            assertTrue(released, "the first run removed a live lease: the force-release freed a held lock");
            assertTrue(store.inspect(name).isEmpty());
        }
    }

    @Test
    void anExtendResentAfterALostReplyAnswersExtended() {
        try (LockStore store = store("500ms")) {
            String name = "retry:lost-extend";
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, Duration.ofSeconds(5))
                    .acquired());
            int lostBefore = cluster.proxy().lostReplies();
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            boolean extended = store.extend(name, "owner-1", TTL);

            assertEquals(lostBefore + 1, cluster.proxy().lostReplies());
            assertTrue(extended, "renewing one's own lease twice is renewing it: the resend answers extended");
            assertTrue(
                    store.inspect(name).orElseThrow().remaining().compareTo(Duration.ofSeconds(20)) > 0,
                    "to the new ttl");
        }
    }

    @Test
    void aForceReleaseResentAfterAnotherOwnerTookTheLockLeavesTheNewHolderAlone() throws Exception {
        assertASecondRunLeavesTheNextHoldAlone(
                "retry:lost-force-release-then-another", "owner-2", LockStore::forceRelease);
    }

    /**
     * The first run finds nothing to free (the lock had just expired) and its answer is lost; another owner takes the
     * lock before the resend. The resend answers what the first run did and leaves that hold alone: every run records
     * its answer, not only one that freed the lock.
     */
    @Test
    void aForceReleaseOfAFreeLockResentAfterAnotherOwnerTookItLeavesThatHoldAlone() throws Exception {
        try (LockStore store = store("2s");
                LockStore other = store("2s")) {
            String name = "retry:lost-force-release-of-a-free-lock";
            CompletableFuture<Boolean> forced = afterALostReply(name, other, () -> store.forceRelease(name));

            assertTrue(other.tryAcquire(name, "owner-2", HOLDER, TTL).acquired(), "the free lock is taken");
            assertFalse(forced.isDone(), "while the first caller still waited for its reply");

            assertFalse(forced.get(10, TimeUnit.SECONDS), "the first run found nothing to free");
            assertEquals(
                    "owner-2",
                    other.inspect(name).map(LockEntry::owner).orElse("<free>"),
                    "the call sent again must not free the hold taken after it");
        }
    }

    /** A handle restored from the first one's token shares its owner id, so the next hold may be the same owner's. */
    @Test
    void aReleaseResentAfterItsOwnerTookTheLockAgainLeavesThatHoldAlone() throws Exception {
        assertASecondRunLeavesTheNextHoldAlone(
                "retry:lost-release-then-same-owner", "owner-1", (store, name) -> store.release(name, "owner-1"));
    }

    @Test
    void aReleaseWithAMinimumHoldResentAfterItsOwnerTookTheLockAgainLeavesThatHoldAlone() throws Exception {
        assertASecondRunLeavesTheNextHoldAlone(
                "retry:lost-release-after-then-same-owner",
                "owner-1",
                (store, name) -> store.release(name, "owner-1", Duration.ofMillis(1)));
    }

    /**
     * {@code call} frees {@code name}, held by owner-1, and its reply is lost; {@code nextOwner} takes the lock before
     * the client sends the script again. The call answers that it freed the lock, and the second run leaves the next
     * hold as it is: same owner, its whole ttl.
     */
    private static void assertASecondRunLeavesTheNextHoldAlone(
            String name, String nextOwner, BiFunction<LockStore, String, Boolean> call) throws Exception {
        try (LockStore store = store("2s");
                LockStore other = store("2s")) {
            assertTrue(store.tryAcquire(name, "owner-1", HOLDER, TTL).acquired());
            CompletableFuture<Boolean> freed = afterALostReply(name, other, () -> call.apply(store, name));

            assertTrue(other.tryAcquire(name, nextOwner, HOLDER, TTL).acquired(), "the freed lock is taken again");
            assertFalse(freed.isDone(), "while the first caller still waited for its reply");

            assertTrue(freed.get(10, TimeUnit.SECONDS), "the first run freed the lock");
            LockEntry next = other.inspect(name).orElse(null);
            assertTrue(next != null && next.owner().equals(nextOwner), "the next hold stays: " + next);
            assertTrue(next.remaining().compareTo(Duration.ofSeconds(20)) > 0, "with its whole ttl: " + next);
        }
    }

    /**
     * Starts {@code call} on a lock whose next reply the proxy loses, and returns once its first run has freed the
     * lock (as {@code observer} sees), while the caller still waits for the reply it will send the script again for.
     */
    private static CompletableFuture<Boolean> afterALostReply(String name, LockStore observer, Supplier<Boolean> call)
            throws InterruptedException {
        int lostBefore = cluster.proxy().lostReplies();
        cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));
        CompletableFuture<Boolean> outcome = CompletableFuture.supplyAsync(call);
        RedisServers.awaitTrue(
                () -> cluster.proxy().lostReplies() == lostBefore + 1
                        && observer.inspect(name).isEmpty(),
                Duration.ofSeconds(2),
                "the first run freed the lock and its reply was lost");
        return outcome;
    }
}

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lost reply on Redis Cluster, for real: a one-node cluster on port 7130 announces itself at a
 * {@link FaultyProxy}, so every connection of the store's Cluster client goes through the proxy. The proxy
 * lets the acquire script reach Redis (which takes the lock) and loses its reply; the client times out on the read
 * and, as Jedis's Cluster executor does after a connection failure, sends the script again on a new connection.
 * That second run finds the caller's own hold.
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

    @Test
    void anAcquireResentAfterALostReplyAnswersAcquiredWithTheHoldItTook() {
        try (LockStore store = new RedisLockStoreProvider()
                .create(
                        "retry",
                        Map.of(
                                "nodes", cluster.seed(),
                                "connect-timeout", "2s",
                                "socket-timeout", "500ms"))) {
            // the scripts are loaded first, so the lost reply is that of a script that ran, not a NOSCRIPT error
            assertTrue(store.tryAcquire("retry:warm-up", "owner-0", HOLDER, TTL).acquired());
            String name = "retry:lost-reply";
            cluster.proxy().loseRepliesAfter(RedisKeys.lockKey(name));

            Acquisition outcome = store.tryAcquire(name, "owner-1", HOLDER, TTL);

            assertEquals(
                    1, cluster.proxy().lostReplies(), "the first reply was lost, so the client sent the script again");
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
}

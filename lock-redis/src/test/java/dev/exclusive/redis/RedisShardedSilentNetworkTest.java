package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;

/**
 * The sharded release subscriber on a link that stops answering without closing: a one-node Cluster on port 7421
 * announces itself at a {@link FaultyProxy}, so the shard's subscribed connection goes through it. When the proxy
 * stops forwarding, the watchdog that the waiters drive probes the connection, drops it, and once the network
 * answers again the waiters subscribe their channel again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisShardedSilentNetworkTest {

    private static final int PORT = 7421;
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final LockHolder HOLDER = new LockHolder("sharded-silent-test", "main", "");
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
    void theWatchdogDropsASilentShardConnectionAndTheWaitersSubscribeAgain() throws Exception {
        String name = "silent-shard";
        try (RedisLockStore holder = store("silent-holder");
                RedisLockStore store = store("silent-waiter")) {
            assertTrue(holder.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            AtomicBoolean waiting = new AtomicBoolean(true);
            Thread waiter = RedisServers.waitWhile(waiting, store, name);
            try {
                assertTrue(store.shards().awaitSubscribed(name, 10, TimeUnit.SECONDS), "subscribed through the proxy");

                cluster.proxy().stall();
                long stalled = System.nanoTime();
                // a probe after 1 s of silence, given up 2 s later, at a waiter's check
                long bound = ReleaseSubscriber.PROBE_AFTER_MILLIS + ReleaseSubscriber.SILENCE_LIMIT_MILLIS + 3_000;
                RedisServers.awaitTrue(
                        () -> store.shards().connections() == 0,
                        Duration.ofMillis(bound),
                        "the watchdog to drop the silent shard connection");
                long noticedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalled);
                System.out.printf("sharded subscriber: silent link dropped after %d ms%n", noticedAfter);
                assertFalse(store.shards().awaitSubscribed(name, 0, TimeUnit.SECONDS), "not subscribed meanwhile");

                cluster.proxy().resume();
                assertTrue(
                        store.shards().awaitSubscribed(name, 10, TimeUnit.SECONDS),
                        "subscribed again once the network answers (dropped after " + noticedAfter + " ms)");
            } finally {
                waiting.set(false);
                waiter.join(5_000);
                holder.forceRelease(name);
            }
        }
    }

    private static RedisLockStore store(String storeName) {
        return RedisLockStore.builder()
                .clusterNodes(List.of(HostAndPort.from(cluster.seed())))
                .storeName(storeName)
                .connectTimeout(TIMEOUT)
                .socketTimeout(TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }
}

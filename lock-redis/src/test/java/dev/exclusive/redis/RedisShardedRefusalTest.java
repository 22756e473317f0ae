package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Review test: a one-node Redis 7 Cluster on 6510 whose store user may not subscribe to channels (Redis 7's default
 * for a new ACL user is {@code resetchannels}). Commands work, so the lock is busy, but every SSUBSCRIBE is refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisShardedRefusalTest {

    private static final LockHolder HOLDER = new LockHolder("sharded-refusal", "main", "");

    @Test
    void aRefusedShardSubscriptionDoesNotTurnWaitingIntoABusyLoop() throws Exception {
        try (ProxiedCluster cluster = ProxiedCluster.start(6510)) {
            try (Jedis admin = new Jedis(new HostAndPort(RedisServers.HOST, 6510))) {
                admin.aclSetUser("nochan", "on", ">Nochan#1", "~exclusive:*", "resetchannels", "+@all");
            }
            AtomicInteger threads = new AtomicInteger();
            try (RedisLockStore store = RedisLockStore.builder()
                    .clusterNodes(Set.of(HostAndPort.from(cluster.seed())))
                    .user("nochan")
                    .password("Nochan#1")
                    .storeName("refused")
                    .fenceRetention(Duration.ofMinutes(5))
                    .threadFactory(task -> {
                        threads.incrementAndGet();
                        return new Thread(task);
                    })
                    .build()) {
                String name = "held";
                assertTrue(store.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(60))
                        .acquired());
                int waits = 0;
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() - end < 0) {
                    store.awaitRelease(name, Duration.ofSeconds(1)); // as the core's block() does, at most 1 s
                    waits++;
                }
                assertTrue(
                        waits <= 15 && threads.get() <= 15,
                        "in 3 s of waiting on a held lock: " + waits + " wake-ups, " + threads.get()
                                + " subscriber threads started");
            }
        }
    }

    /**
     * The shard's connection goes silent before Redis confirms its first SSUBSCRIBE (a half-open link, a hung
     * node): the watchdog only looks at shards that started, so the shard is never dropped, and every channel of
     * that node stays unsubscribed for the life of the store.
     */
    @Test
    void aShardSilentBeforeItsFirstConfirmationIsDroppedByTheWatchdog() throws Exception {
        try (ProxiedCluster cluster = ProxiedCluster.start(6511)) {
            try (RedisLockStore holder = clusterStore(cluster, "silent-first-holder");
                    RedisLockStore store = clusterStore(cluster, "silent-first-waiter")) {
                String name = "silent-first";
                assertTrue(holder.tryAcquire(name, "holder", HOLDER, Duration.ofSeconds(60))
                        .acquired());
                assertTrue(holder.shardedReleases() && store.shardedReleases()); // asked before the proxy is armed
                cluster.proxy().loseRepliesAfter("SSUBSCRIBE"); // the shard's connection hears nothing back
                AtomicBoolean waiting = new AtomicBoolean(true);
                Thread waiter = RedisServers.waitWhile(waiting, store, name);
                try {
                    assertTrue(
                            store.shards().awaitSubscribed(name, 15, TimeUnit.SECONDS),
                            "subscribed on a new connection after the silent one was dropped; lost replies: "
                                    + cluster.proxy().lostReplies() + ", shard connections: "
                                    + store.shards().connections());
                } finally {
                    waiting.set(false);
                    waiter.join(5_000);
                    holder.forceRelease(name);
                }
            }
        }
    }

    private static RedisLockStore clusterStore(ProxiedCluster cluster, String storeName) {
        return RedisLockStore.builder()
                .clusterNodes(Set.of(HostAndPort.from(cluster.seed())))
                .storeName(storeName)
                .connectTimeout(Duration.ofMillis(500))
                .socketTimeout(Duration.ofMillis(500))
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }
}

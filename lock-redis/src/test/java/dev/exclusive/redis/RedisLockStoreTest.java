package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.AuditRecord;
import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** The store contract on the standalone Redis at 127.0.0.1:6379; each test works under its own prefix. */
class RedisLockStoreTest extends LockStoreContract {

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @Override
    protected LockStore createStore() {
        return createStore(AuditLimits.DEFAULT).orElseThrow();
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(RedisServers.standaloneStore(RedisServers.SHARED_URL, STORE, limits));
    }

    @Test
    void storeOnAnApplicationClientWorksAndLeavesTheClientOpen() throws Exception {
        try (RedisClient application = RedisClient.create(URI.create(RedisServers.SHARED_URL))) {
            RedisLockStore store = RedisLockStore.using(application, STORE);
            LockRegistry shared = newRegistry(store);
            Lock holder = shared.lock("app-client", Duration.ofSeconds(30));
            assertTrue(holder.get());
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(
                    () -> shared.lock("app-client", Duration.ofSeconds(30)).block(Duration.ofSeconds(20)));
            assertTrue(store.subscriber().awaitListening(10, TimeUnit.SECONDS), "the subscriber connects");
            assertTrue(holder.release());
            assertTrue(waiter.get(20, TimeUnit.SECONDS));
            store.close();
            assertFalse(store.subscriber().listening(), "closing the store ends its subscription");
            assertEquals("PONG", application.ping(), "the application's client stays open");
        }
    }

    @Test
    void auditRecordsOlderThanTheMaximumAgeByTheRedisClockAreLeftOutAndPopped() {
        LockStore store =
                createStore(new AuditLimits(1000, Duration.ofHours(1))).orElseThrow();
        AuditRecord ancient = new AuditRecord(
                Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, fullName("ancient"), "a", 1, null, "node-1", "lost");
        try (RedisClient redis = RedisClient.create(URI.create(RedisServers.SHARED_URL))) {
            // the oldest end of the list, stamped an hour and a minute ago (the Redis runs on this host's clock)
            long old = System.currentTimeMillis() - Duration.ofMinutes(61).toMillis();
            redis.rpush(RedisKeys.AUDIT, old + "|" + ancient.encode());

            assertTrue(
                    store.auditTrail(1000).stream().noneMatch(r -> r.lockName().equals(fullName("ancient"))));
            store.audit(new AuditRecord(
                    Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, fullName("recent"), "a", 2, null, "node-1", "lost"));
            assertTrue(
                    redis.lrange(RedisKeys.AUDIT, 0, -1).stream().noneMatch(item -> item.contains(fullName("ancient"))),
                    "the append pops what aged out");
            AuditRecord recent = store.auditTrail(1).get(0);
            assertEquals(fullName("recent"), recent.lockName());
            assertTrue(
                    Duration.between(recent.at(), Instant.now()).abs().compareTo(Duration.ofMinutes(1)) < 0,
                    "stamped by the Redis clock, not the caller's: " + recent.at());
        } finally {
            store.close();
        }
    }
}

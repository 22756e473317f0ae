package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.util.Pool;

/**
 * A thread whose interrupt flag is set (work that was interrupted, releasing in a {@code finally} block) still
 * reaches Redis when every pooled connection is busy and it has to wait for one: the pool's wait would otherwise
 * end at once on the flag, fail the call and clear the flag.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisInterruptFlagTest {

    private static final LockHolder HOLDER = new LockHolder("interrupt-test", "main", "");

    private RedisLockStore store;
    private String name;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @BeforeEach
    void openStore() {
        store = RedisLockStore.builder()
                .url(URI.create(RedisServers.SHARED_URL))
                .storeName("interrupts")
                .poolSize(1)
                .socketTimeout(Duration.ofSeconds(10))
                .build();
        name = "interrupt-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeStore() {
        Thread.interrupted();
        store.close();
    }

    @Test
    void aReleaseThatWaitsForAPooledConnectionWorksWithTheFlagSetAndLeavesItSet() throws Exception {
        assertTrue(
                store.tryAcquire(name, "owner", HOLDER, Duration.ofSeconds(30)).acquired());
        Pool<Connection> pool = ((RedisClient) store.client()).getPool();
        Connection busy = pool.getResource();
        Connection alsoBusy = pool.getResource(); // the pool holds pool-size + 1: now none is free
        Thread caller = Thread.currentThread();
        CompletableFuture<Boolean> handedBack = CompletableFuture.supplyAsync(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (caller.getState() != Thread.State.TIMED_WAITING) { // the caller waits for a connection
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            busy.close(); // back to the pool, to the waiting caller
            return true;
        });
        boolean released;
        boolean flagKept;
        try {
            caller.interrupt();
            released = store.release(name, "owner");
            flagKept = Thread.currentThread().isInterrupted();
        } finally {
            Thread.interrupted();
            alsoBusy.close();
        }
        assertTrue(handedBack.get(10, TimeUnit.SECONDS), "the caller waited for a pooled connection");
        assertTrue(released, "released although the flag was set");
        assertTrue(flagKept, "the flag is still set");
        assertFalse(store.inspect(name).isPresent());
    }
}

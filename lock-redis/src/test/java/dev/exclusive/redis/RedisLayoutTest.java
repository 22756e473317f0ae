package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The lease layout: fences that keep growing when the counter expired or was lost, owners that a line feed
 * cannot confuse, and a rolling upgrade, with the previous version's own scripts (kept in the test resources)
 * writing and reading the same Redis as this one.
 */
class RedisLayoutTest {

    private static final LockHolder HOLDER = new LockHolder("layout-test", "main", "");
    private static final Duration TTL = Duration.ofSeconds(30);

    private RedisLockStore store;
    private String prefix;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @BeforeEach
    void openStore() {
        store = RedisServers.sharedStore("layout");
        prefix = RedisServers.uniquePrefix("layout");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void fencesGrowAfterExpiryAndWhenTheCounterIsGone() throws InterruptedException {
        String name = prefix + "reused";
        long first = fence(store.tryAcquire(name, "alice", HOLDER, Duration.ofMillis(30)));
        RedisServers.awaitTrue(() -> store.inspect(name).isEmpty(), Duration.ofSeconds(5), "the lease to expire");
        long afterExpiry = fence(store.tryAcquire(name, "bob", HOLDER, TTL));
        assertTrue(afterExpiry > first, first + " then " + afterExpiry);
        assertTrue(store.release(name, "bob"));
        store.client().del(RedisKeys.fenceKey(name)); // a counter past its retention, or lost in a failover
        long afterLoss = fence(store.tryAcquire(name, "carol", HOLDER, TTL));
        assertTrue(afterLoss > afterExpiry, afterExpiry + " then " + afterLoss + ": above the Redis clock in µs");
        long retained = store.client().pttl(RedisKeys.fenceKey(name));
        assertTrue(retained >= Duration.ofMinutes(5).plus(TTL).toMillis() - 1_000, "kept again: " + retained);
    }

    @Test
    void anOwnerWithALineFeedCannotPassForAShorterOne() {
        String name = prefix + "line-feed";
        assertTrue(store.tryAcquire(name, "a\nb", HOLDER, TTL).acquired());
        assertFalse(store.release(name, "a"));
        assertFalse(store.extend(name, "a", TTL));
        assertFalse(store.tryAcquire(name, "a", HOLDER, TTL).acquired());
        assertEquals("a\nb", store.inspect(name).orElseThrow().owner());
        assertTrue(store.tryAcquire(prefix + "percent", "a%0Ab", HOLDER, TTL).acquired());
        assertEquals("a%0Ab", store.inspect(prefix + "percent").orElseThrow().owner());
        assertTrue(store.release(name, "a\nb"));
    }

    @Test
    void aHoldOfThePreviousVersionIsRespectedReadAndReleasedByItsOwner() {
        String name = prefix + "upgrading";
        long oldFence = previousAcquire(name, "old-owner");
        Acquisition busy = store.tryAcquire(name, "new-owner", HOLDER, TTL);
        assertFalse(busy.acquired(), "a hold of the previous version excludes this one");
        LockEntry entry = store.inspect(name).orElseThrow();
        assertEquals("old-owner", entry.owner());
        assertEquals(oldFence, entry.fence());
        assertEquals(1, store.list(prefix, 10).size());
        assertFalse(store.release(name, "new-owner"));
        assertTrue(store.extend(name, "old-owner", TTL), "a restored handle of the old owner extends it");
        assertEquals(oldFence, fence(store.tryAcquire(name, "old-owner", HOLDER, TTL)), "its retry is its hold");
        assertTrue(store.release(name, "old-owner"), "a restored handle of the old owner releases it");
        long newFence = fence(store.tryAcquire(name, "new-owner", HOLDER, TTL));
        assertTrue(newFence > oldFence, "the counter goes on: " + oldFence + " then " + newFence);
    }

    @Test
    void thePreviousVersionFailsRatherThanTakesAHoldOfThisOne() {
        String name = prefix + "downgraded";
        assertTrue(store.tryAcquire(name, "new-owner", HOLDER, TTL).acquired());
        JedisDataException refused = assertThrows(JedisDataException.class, () -> previousAcquire(name, "old"));
        assertTrue(refused.getMessage().contains("WRONGTYPE"), refused.getMessage());
        assertThrows(
                JedisDataException.class,
                () -> store.client()
                        .eval(previous("release"), List.of(RedisKeys.lockKey(name)), List.of("old", "c", name, "0")));
        assertEquals("new-owner", store.inspect(name).orElseThrow().owner(), "still held by this version");
    }

    private long previousAcquire(String name, String owner) {
        List<?> reply = (List<?>) store.client()
                .eval(
                        previous("acquire"),
                        List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name)),
                        List.of(owner, HOLDER.encode(), Long.toString(TTL.toMillis()), "300000"));
        assertEquals(1L, reply.get(0), "the previous version acquired");
        return (Long) reply.get(1);
    }

    private static long fence(Acquisition acquisition) {
        return assertInstanceOf(Acquisition.Acquired.class, acquisition).fence();
    }

    /** @return a script of the previous version, as it shipped */
    private static String previous(String script) {
        try (InputStream in = RedisLayoutTest.class.getResourceAsStream("previous/" + script + ".lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

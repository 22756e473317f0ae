package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * What a released name leaves behind, and for how long: its fence counter, kept the ttl plus the retention after
 * its last acquisition, no longer for a name used once, and long enough that fences keep growing when the Redis
 * clock steps back by less than that. On a Redis of its own (port 7500), so that its memory figures are this
 * test's alone. {@code -Dexclusive.memory.names=100000} measures over more names (default 20,000).
 */
class RedisFenceRetentionTest {

    private static final int PORT = 7500;
    private static final URI URL = URI.create("redis://" + RedisServers.HOST + ":" + PORT);
    private static final LockHolder HOLDER = new LockHolder("retention-test", "main", "");
    private static final int NAMES = Integer.getInteger("exclusive.memory.names", 20_000);

    private static Path folder;

    @BeforeAll
    static void startRedis() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-retention");
        RedisServers.start(PORT, folder);
    }

    @AfterAll
    static void stopRedis() throws IOException, InterruptedException {
        RedisServers.stopAll(folder, PORT);
    }

    @Test
    void aNameUsedOnceKeepsOnlyItsCounterAndThatForTheTtlPlusTheRetention() {
        Duration retention = Duration.ofMinutes(10);
        Duration ttl = Duration.ofSeconds(30);
        try (RedisLockStore store = store(retention);
                Jedis jedis = jedis()) {
            String name = RedisServers.uniquePrefix("once") + "name";
            assertTrue(store.tryAcquire(name, "alice", HOLDER, ttl).acquired());
            assertTrue(store.release(name, "alice"));
            assertFalse(jedis.exists(RedisKeys.lockKey(name)), "the lease is gone");
            long kept = jedis.pttl(RedisKeys.fenceKey(name));
            long least = ttl.plus(retention).toMillis();
            assertTrue(kept > least - 1_000 && kept <= least, "kept ttl + retention, not more: " + kept + " ms");
        }
    }

    /**
     * A fence must exceed every earlier one of the name also after its counter expired: a new counter starts at
     * the Redis clock in µs, so that holds while the clock does not step back by more than the time the counter
     * was kept after the last fence. Here the counter is set as if its fences came from a clock 1.2 s ahead of
     * Redis's (the same as Redis's clock stepping back 1.2 s), with a retention of 1.5 s after the last
     * acquisition but only 0.6 s left after the first: a counter kept from its creation, not from its last use,
     * expires too early, and the next fence comes out smaller.
     */
    @Test
    void fencesKeepGrowingAfterTheCounterExpiresWhenTheClockStepsBackByLessThanTheRetention()
            throws InterruptedException {
        Duration retention = Duration.ofMillis(1_500);
        Duration ttl = Duration.ofMillis(100);
        try (RedisLockStore store = store(retention);
                Jedis jedis = jedis()) {
            String name = RedisServers.uniquePrefix("stepped") + "name";
            String counter = RedisKeys.fenceKey(name);
            assertTrue(store.tryAcquire(name, "alice", HOLDER, ttl).acquired());
            assertTrue(store.release(name, "alice"));
            Thread.sleep(1_000); // the counter's first retention runs down: 0.6 s of it left
            List<String> time = jedis.time();
            long ahead = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)) + 1_200_000;
            jedis.set(counter, Long.toString(ahead), SetParams.setParams().keepTtl());
            long last = fence(store.tryAcquire(name, "bob", HOLDER, ttl));
            assertTrue(store.release(name, "bob"));
            assertEquals(ahead + 1, last);
            RedisServers.awaitTrue(() -> !jedis.exists(counter), Duration.ofSeconds(10), "the counter to expire");
            long next = fence(store.tryAcquire(name, "carol", HOLDER, ttl));
            assertTrue(next > last, "fence " + next + " after " + last + ": the counter was dropped too early");
        }
    }

    /**
     * The figures of README's Redis section: bytes per released name and keys left an hour after a burst, with
     * the default retention and a 30 s ttl.
     */
    @Test
    void releasedNamesCostOneCounterEachThatIsGoneAnHourAndATtlAfterTheBurst() throws InterruptedException {
        Duration ttl = Duration.ofSeconds(30);
        try (Jedis jedis = jedis()) {
            jedis.flushAll();
            long before = RedisInfo.usedMemory(PORT);
            RedisLockStore store = RedisLockStore.builder().url(URL).build();
            NameChurn.Result burst = NameChurn.run(store, "burst:", NAMES, 4, ttl);
            assertEquals(NAMES, burst.released(), "every name taken and freed: " + burst);
            long after = RedisInfo.usedMemory(PORT);
            long keys = jedis.dbSize();
            long sampled = 0;
            long samples = 0;
            long keptLongest = 0;
            long keptPastAnHour = 0;
            long keptPastAnHourAndTtl = 0;
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(1_000));
                for (String key : page.getResult()) {
                    long kept = jedis.pttl(key);
                    keptLongest = Math.max(keptLongest, kept);
                    keptPastAnHour += kept > Duration.ofHours(1).toMillis() ? 1 : 0;
                    keptPastAnHourAndTtl += kept > Duration.ofHours(1).plus(ttl).toMillis() ? 1 : 0;
                    if (samples < 1_000) {
                        sampled += jedis.memoryUsage(key);
                        samples++;
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            System.out.printf(
                    "Memory per released name: %d names in %.1f s (%.0f/s); %d keys left; used_memory +%d bytes ="
                            + " %.1f bytes per name; MEMORY USAGE %.1f bytes per key; longest kept %.0f s; kept"
                            + " past an hour: %d, past an hour and the ttl: %d%n",
                    NAMES,
                    burst.nanos() / 1e9,
                    burst.perSecond(),
                    keys,
                    after - before,
                    (after - before) / (double) NAMES,
                    sampled / (double) samples,
                    keptLongest / 1e3,
                    keptPastAnHour,
                    keptPastAnHourAndTtl);
            assertEquals(NAMES, keys, "one key per released name: its counter");
            assertTrue(
                    keptLongest
                            <= ttl.plus(RedisLockStore.DEFAULT_FENCE_RETENTION).toMillis(),
                    "no counter outlives the ttl + the default retention: " + keptLongest + " ms");
            assertTrue((after - before) / NAMES < 200, "under 200 bytes per name: " + (after - before) / NAMES);
            jedis.flushAll();
        }
    }

    private static RedisLockStore store(Duration retention) {
        return RedisLockStore.builder().url(URL).fenceRetention(retention).build();
    }

    private static Jedis jedis() {
        return new Jedis(RedisServers.HOST, PORT);
    }

    private static long fence(Acquisition acquisition) {
        return ((Acquisition.Acquired) acquisition).fence();
    }
}

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
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.providers.PooledConnectionProvider;

/** The Lua scripts through the store SPI, on the shared Redis, each test under its own prefix. */
class RedisScriptsTest {

    private static final LockHolder HOLDER = new LockHolder("scripts-test", "main", "checking");
    private static final Duration TTL = Duration.ofSeconds(30);

    private RedisLockStore store;
    private String prefix;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @BeforeEach
    void openStore() {
        store = RedisServers.sharedStore("scripts");
        prefix = RedisServers.uniquePrefix("scripts");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void anotherOwnerCannotReleaseOrExtend() {
        String name = prefix + "owned";
        assertTrue(store.tryAcquire(name, "alice", HOLDER, TTL).acquired());
        assertFalse(store.release(name, "bob"));
        assertFalse(store.extend(name, "bob", Duration.ofMinutes(5)));
        LockEntry entry = store.inspect(name).orElseThrow();
        assertEquals("alice", entry.owner());
        assertEquals(HOLDER, entry.holder());
        assertTrue(
                entry.remaining().compareTo(TTL.plusMillis(2)) <= 0,
                "bob's extend changed nothing: " + entry.remaining());
        assertTrue(store.release(name, "alice"));
    }

    @Test
    void busyAnswerCarriesTheHoldersRemainingLease() {
        String name = prefix + "busy";
        assertTrue(store.tryAcquire(name, "alice", HOLDER, TTL).acquired());
        Acquisition busy = store.tryAcquire(name, "bob", HOLDER, TTL);
        Duration remaining = assertInstanceOf(Acquisition.Busy.class, busy).remaining();
        assertTrue(
                remaining.compareTo(Duration.ofSeconds(25)) > 0 && remaining.compareTo(TTL.plusMillis(2)) <= 0,
                String.valueOf(remaining));
    }

    @Test
    void aRetryByTheHolderKeepsItsHoldAndRenewsTheLeaseAndTheFenceCounter() {
        String name = prefix + "retried";
        Acquisition.Acquired first =
                (Acquisition.Acquired) store.tryAcquire(name, "alice", HOLDER, Duration.ofSeconds(2));
        store.client().pexpire(RedisKeys.fenceKey(name), 1_000); // as if the counter's retention were running out
        Acquisition.Acquired retried = assertInstanceOf(
                Acquisition.Acquired.class,
                store.tryAcquire(name, "alice", new LockHolder("elsewhere", "retrying", ""), TTL));
        assertEquals(first.fence(), retried.fence());
        // acquire.lua reads no clock: the first answer's time is this JVM's estimate of the Redis clock when the
        // reply arrived (late by the client's own handling of it, some ms in a cold JVM), the retry's is that
        // estimate minus the lease's own count of milliseconds held
        assertTrue(
                Duration.between(first.acquiredAt(), retried.acquiredAt()).abs().toMillis() <= 50,
                first.acquiredAt() + " then " + retried.acquiredAt());
        assertTrue(
                retried.expiresAt().isAfter(first.expiresAt().plus(Duration.ofSeconds(25))),
                "the lease now ends a ttl after the retry: " + retried.expiresAt());
        LockEntry entry = store.inspect(name).orElseThrow();
        assertTrue(entry.remaining().compareTo(Duration.ofSeconds(25)) > 0, "renewed to the ttl: " + entry.remaining());
        assertEquals(HOLDER, entry.holder(), "the hold is the first attempt's");
        long retained = store.client().pttl(RedisKeys.fenceKey(name));
        assertTrue(retained > TTL.toMillis(), "the fence counter outlives the renewed lease: " + retained + " ms");
    }

    @Test
    void anExpiredKeyIsFreeAndItsOldOwnerHoldsNothing() throws InterruptedException {
        String name = prefix + "expiring";
        Acquisition.Acquired first =
                (Acquisition.Acquired) store.tryAcquire(name, "alice", HOLDER, Duration.ofMillis(50));
        RedisServers.awaitTrue(() -> store.inspect(name).isEmpty(), Duration.ofSeconds(5), "the lease to expire");
        assertFalse(store.release(name, "alice"));
        assertFalse(store.extend(name, "alice", TTL));
        assertFalse(store.forceRelease(name));
        Acquisition.Acquired second = (Acquisition.Acquired) store.tryAcquire(name, "bob", HOLDER, TTL);
        assertTrue(second.fence() > first.fence());
    }

    @Test
    void aLeaseInItsLastMillisecondIsExpiredForItsOwnersReleaseToo() {
        // inspect.lua (like acquire.lua) sees a lease whose PTTL reads 0 as expired; polled as fast as it answers,
        // it usually first reports the lock free in that last millisecond, while Redis still keeps the key
        int releasedAfterExpiry = 0;
        for (int i = 0; i < 40; i++) {
            String name = prefix + "last-ms-" + i;
            assertTrue(store.tryAcquire(name, "alice", HOLDER, Duration.ofMillis(1))
                    .acquired());
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (store.inspect(name).isPresent()) {
                assertTrue(System.nanoTime() < deadline, "the 1 ms lease never expired");
            }
            if (store.release(name, "alice")) {
                releasedAfterExpiry++;
            }
        }
        assertEquals(0, releasedAfterExpiry, "releases that freed a lease inspect already saw expired");
    }

    @Test
    void timesComeFromTheRedisClockAndTheFenceCounterOutlivesTheLease() {
        String name = prefix + "timed";
        Acquisition.Acquired acquired = (Acquisition.Acquired) store.tryAcquire(name, "alice", HOLDER, TTL);
        List<String> time;
        try (Jedis jedis = new Jedis(RedisServers.HOST, RedisServers.SHARED_PORT)) {
            time = jedis.time();
        }
        Instant redisNow = Instant.ofEpochSecond(Long.parseLong(time.get(0)), Long.parseLong(time.get(1)) * 1_000);
        assertTrue(Duration.between(acquired.acquiredAt(), redisNow).abs().toMillis() < 1_000);
        assertEquals(TTL, Duration.between(acquired.acquiredAt(), acquired.expiresAt()));
        assertTrue(store.release(name, "alice"));
        assertFalse(store.client().exists(RedisKeys.lockKey(name)), "a released lock leaves no lease key");
        long retained = store.client().pttl(RedisKeys.fenceKey(name));
        assertTrue(retained > Duration.ofMinutes(4).toMillis(), "the fence counter is kept: " + retained + " ms");
    }

    @Test
    void aReleaseBeforeTheFloorEndsTheLeaseAtTheFloorInOneScriptHoweverSlowTheClient() {
        // 150 ms between the client and Redis: a floor read by one script and applied by another (an inspect,
        // then an extend) would end the lease at least that much after acquisition + minimum hold.
        try (UnifiedJedis slow = slowClient(Duration.ofMillis(150));
                RedisLockStore slowStore = RedisLockStore.using(slow, "slow")) {
            String name = prefix + "floored";
            Acquisition.Acquired acquired =
                    (Acquisition.Acquired) slowStore.tryAcquire(name, "alice", HOLDER, Duration.ofSeconds(60));
            assertTrue(slowStore.release(name, "alice", Duration.ofSeconds(30)));
            LockEntry kept = store.inspect(name).orElseThrow();
            Instant floor = acquired.acquiredAt().plusSeconds(30);
            // acquiredAt is this JVM's estimate of the Redis clock (acquire.lua reads no clock), late by the
            // client's handling of the reply: some ms on a busy machine (seen: 8 ms). A floor applied by a second
            // script would be off by the 150 ms round trip at least, so 50 ms still tells the two apart.
            assertTrue(
                    Duration.between(floor, kept.expiresAt()).abs().toMillis() <= 50,
                    "the lease ends at the floor " + floor + ", got " + kept.expiresAt());
            assertEquals("alice", kept.owner());
            assertEquals(acquired.fence(), kept.fence());
            assertFalse(store.tryAcquire(name, "bob", HOLDER, TTL).acquired());
        }
    }

    @Test
    void aReleaseBeforeTheFloorPublishesNothingAndOneAfterItDoesWhenAnotherInstanceWaits() throws InterruptedException {
        String kept = prefix + "kept";
        String freed = prefix + "freed";
        BlockingQueue<String> published = new LinkedBlockingQueue<>();
        CountDownLatch subscribed = new CountDownLatch(1);
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onSubscribe(String channel, int subscribedChannels) {
                subscribed.countDown();
            }

            @Override
            public void onMessage(String channel, String message) {
                String name = RedisKeys.nameOf(message); // the lease key is published
                if (name != null && name.startsWith(prefix)) { // the shared Redis carries other tests' too
                    published.add(name);
                }
            }
        };
        Thread subscriber = new Thread(() -> {
            try (Jedis jedis = new Jedis(RedisServers.HOST, RedisServers.SHARED_PORT)) {
                jedis.subscribe(listener, RedisKeys.RELEASED_CHANNEL);
            }
        });
        subscriber.start();
        try {
            assertTrue(subscribed.await(10, TimeUnit.SECONDS), "subscribed");
            assertTrue(store.tryAcquire(freed, "alice", HOLDER, TTL).acquired());
            assertTrue(store.tryAcquire(kept, "alice", HOLDER, TTL).acquired());
            for (String name : List.of(kept, freed)) { // a waiter of another store instance records itself
                assertTrue(RedisReplies.yes(RedisScript.WAIT.run(
                        store.client(), List.of(RedisKeys.lockKey(name)), List.of("another-instance"))));
            }
            assertTrue(store.release(kept, "alice", Duration.ofSeconds(20)));
            Thread.sleep(50); // let the 10 ms floor of "freed" pass
            assertTrue(store.release(freed, "alice", Duration.ofMillis(10)));
            assertEquals(freed, published.poll(10, TimeUnit.SECONDS), "messages arrive in order: none for " + kept);
            assertTrue(store.inspect(kept).isPresent(), "kept until its floor");
            assertTrue(store.inspect(freed).isEmpty());
        } finally {
            listener.unsubscribe();
            subscriber.join(10_000);
        }
    }

    /** @return a client on the shared Redis that waits {@code delay} before sending each script */
    private static UnifiedJedis slowClient(Duration delay) {
        return new UnifiedJedis(
                new PooledConnectionProvider(new HostAndPort(RedisServers.HOST, RedisServers.SHARED_PORT)),
                1,
                Duration.ofSeconds(2)) {
            @Override
            public Object evalsha(String sha1, List<String> keys, List<String> args) {
                pause(delay);
                return super.evalsha(sha1, keys, args);
            }

            @Override
            public Object eval(String script, List<String> keys, List<String> args) {
                pause(delay);
                return super.eval(script, keys, args);
            }
        };
    }

    private static void pause(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while simulating a slow network", e);
        }
    }

    @Test
    void namesWithGlobCharactersMatchOnlyThemselves() {
        List<String> names = List.of("*", "?", "[ab]", "a", "b", "\\", "x*", "xy", "x?", "x\\*");
        for (String name : names) {
            assertTrue(store.tryAcquire(prefix + name, "alice", HOLDER, TTL).acquired(), name);
        }
        for (String name : names) {
            List<LockEntry> listed = store.list(prefix + name, 100);
            assertTrue(listed.stream().allMatch(entry -> entry.name().startsWith(prefix + name)), name + ": " + listed);
        }
        assertEquals(1, store.list(prefix + "*", 100).size());
        assertEquals(1, store.list(prefix + "[", 100).size());
        assertEquals(1, store.list(prefix + "\\", 100).size());
        assertTrue(store.forceRelease(prefix + "*"));
        assertEquals(names.size() - 1, store.list(prefix, 100).size(), "force-releasing '*' freed nothing else");
        assertFalse(store.release(prefix + "?", "bob"));
        assertTrue(store.inspect(prefix + "a").isPresent());
    }

    @Test
    void bracesAndPercentSignsInNamesKeepLocksApart() {
        List<String> names = List.of("{a}", "a", "}", "%7D", "{", "x}{y", "x", "%", "%25", "\uD800", "\uD801");
        for (String name : names) {
            assertTrue(store.tryAcquire(prefix + name, "alice", HOLDER, TTL).acquired(), name);
        }
        for (String name : names) {
            assertFalse(store.tryAcquire(prefix + name, "bob", HOLDER, TTL).acquired(), name);
            assertEquals(
                    prefix + name, store.inspect(prefix + name).orElseThrow().name());
        }
        assertEquals(names.size(), store.list(prefix, 100).size());
        assertEquals(
                List.of(prefix + "x}{y"),
                store.list(prefix + "x}", 100).stream().map(LockEntry::name).toList());
    }

    @Test
    void listingHonoursTheLimitAndLeavesOutExpiredLocks() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            assertTrue(
                    store.tryAcquire(prefix + "live:" + i, "alice", HOLDER, TTL).acquired());
        }
        assertTrue(store.tryAcquire(prefix + "live:short", "alice", HOLDER, Duration.ofMillis(30))
                .acquired());
        RedisServers.awaitTrue(
                () -> store.inspect(prefix + "live:short").isEmpty(),
                Duration.ofSeconds(5),
                "the short lease to expire");
        assertEquals(5, store.list(prefix + "live:", 100).size());
        assertEquals(2, store.list(prefix + "live:", 2).size());
    }

    /**
     * The lease layout: fences that keep growing when the counter expired or was lost, owners that a line feed
     * cannot confuse, and a rolling upgrade, with the previous version's own scripts (kept in the test resources)
     * writing and reading the same Redis as this one.
     */
    @Nested
    class Layout {

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
            assertTrue(
                    store.tryAcquire(prefix + "percent", "a%0Ab", HOLDER, TTL).acquired());
            assertEquals(
                    "a%0Ab", store.inspect(prefix + "percent").orElseThrow().owner());
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
                            .eval(
                                    previous("release"),
                                    List.of(RedisKeys.lockKey(name)),
                                    List.of("old", "c", name, "0")));
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
            try (InputStream in = RedisScriptsTest.class.getResourceAsStream("previous/" + script + ".lua")) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}

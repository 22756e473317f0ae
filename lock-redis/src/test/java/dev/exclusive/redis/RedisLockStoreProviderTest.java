package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisLockStoreProviderTest {

    @Test
    void serviceLoaderFindsTheRedisType() {
        assertInstanceOf(
                RedisLockStoreProvider.class,
                LockStoreProvider.forType("redis", getClass().getClassLoader()));
    }

    @Test
    void providerBuildsAStoreFromAUrlWithDatabaseTimeoutsAndPoolSize() {
        RedisServers.requireSharedRedis();
        try (LockRegistry registry = LockRegistry.builder()
                .store(
                        "shared",
                        "redis",
                        Map.of(
                                "url",
                                RedisServers.SHARED_URL + "/2",
                                "prefix",
                                "provider-test:",
                                "connect-timeout",
                                "500ms",
                                "socket-timeout",
                                "PT1S",
                                "pool-size",
                                "4"))
                .build()) {
            Lock lock = registry.lock("x", 10);
            assertEquals("provider-test:x", lock.name());
            assertTrue(lock.get());
            assertTrue(lock.release());
        }
    }

    @Test
    void aTlsUrlIsAccepted() {
        try (LockStore store = new RedisLockStoreProvider()
                .create("shared", Map.of("url", "rediss://127.0.0.1:7149", "connect-timeout", "500ms"))) {
            assertEquals("RedisLockStore[shared on rediss://127.0.0.1:7149]", store.toString());
            assertThrows(LockStoreUnavailableException.class, store::ping, "nothing listens there");
        }
    }

    @Test
    void unknownKeysAreRejectedByName() {
        assertKey("urll", Map.of("urll", "redis://localhost"));
        assertKey("timeout", Map.of("url", "redis://localhost", "timeout", "2s"));
    }

    @Test
    void aMissingOrMalformedUrlIsNamed() {
        LockConfigurationException missing = assertKey("url", Map.of());
        assertTrue(missing.getMessage().contains("exclusive.store.shared.url"), missing.getMessage());
        assertKey("url", Map.of("url", "http://localhost:6379"));
        assertKey("url", Map.of("url", "redis://local host"));
    }

    @Test
    void badTimeoutsAndPoolSizesAreNamed() {
        assertKey("connect-timeout", Map.of("url", "redis://localhost", "connect-timeout", "2 parsecs"));
        assertKey("socket-timeout", Map.of("url", "redis://localhost", "socket-timeout", "0ms"));
        assertKey("socket-timeout", Map.of("url", "redis://localhost", "socket-timeout", "1h"));
        assertKey("pool-size", Map.of("url", "redis://localhost", "pool-size", "0"));
        assertKey("pool-size", Map.of("url", "redis://localhost", "pool-size", "many"));
        assertKey("min-replicas", Map.of("url", "redis://localhost", "min-replicas", "-1"));
        assertKey("min-replicas", Map.of("url", "redis://localhost", "min-replicas", "one"));
        assertKey("replica-timeout", Map.of("url", "redis://localhost", "replica-timeout", "0ms"));
        assertKey("retention", Map.of("url", "redis://localhost", "retention", "500ms"));
    }

    @Test
    void retentionSetsHowLongAFenceCounterOutlivesTheLease() {
        RedisServers.requireSharedRedis();
        String name = RedisServers.uniquePrefix("retention") + "x";
        try (RedisLockStore store = (RedisLockStore) new RedisLockStoreProvider()
                .create("shared", Map.of("url", RedisServers.SHARED_URL, "retention", "5s"))) {
            assertTrue(
                    store.tryAcquire(name, "alice", new LockHolder("provider-test", "main", ""), Duration.ofSeconds(1))
                            .acquired());
            assertTrue(store.release(name, "alice"));
            long kept = store.client().pttl(RedisKeys.fenceKey(name));
            assertTrue(kept > 5_000 && kept <= 6_000, "the ttl plus 5 s: " + kept + " ms");
        }
    }

    @Test
    void replicationSettingsAreAccepted() {
        try (LockStore store = new RedisLockStoreProvider()
                .create(
                        "shared",
                        Map.of("url", "redis://127.0.0.1:7149", "min-replicas", "1", "replica-timeout", "50ms"))) {
            assertEquals("RedisLockStore[shared on redis://127.0.0.1:7149]", store.toString());
        }
    }

    @Test
    void clusterAndSentinelSettingsAreChecked() {
        assertKey(
                "nodes",
                Map.of("nodes", "127.0.0.1:7101", "sentinels", "127.0.0.1:26379", "sentinel-master", "mymaster"));
        assertKey("sentinels", Map.of("sentinel-master", "mymaster"));
        assertKey("sentinel-master", Map.of("sentinels", "127.0.0.1:26379"));
        assertKey("nodes", Map.of("nodes", "127.0.0.1"));
        assertKey("sentinels", Map.of("sentinel-master", "m", "sentinels", "127.0.0.1:x"));
        assertKey("url", Map.of("nodes", "127.0.0.1:7101", "url", "redis://127.0.0.1:7102/3"));
    }

    private static LockConfigurationException assertKey(String key, Map<String, String> settings) {
        LockConfigurationException e = assertThrows(
                LockConfigurationException.class,
                () -> new RedisLockStoreProvider().create("shared", settings),
                String.valueOf(settings));
        assertEquals(key, e.key().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().contains("'shared'"), e.getMessage());
        return e;
    }
}

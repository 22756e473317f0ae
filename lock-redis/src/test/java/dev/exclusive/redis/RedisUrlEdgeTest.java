package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** Edges of the {@code url} setting: a Redis on port 6401 protected by a password that holds a colon. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisUrlEdgeTest {

    private static final int PORT = 6401;
    private static final String PASSWORD = "Real:Pass#1";
    private static final LockHolder HOLDER = new LockHolder("url-edge-test", "main", "");
    private static Path folder;

    @BeforeAll
    static void startProtectedRedis() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-url-edge");
        RedisServers.start(PORT, folder, "--requirepass", PASSWORD);
    }

    @AfterAll
    static void stopProtectedRedis() throws IOException, InterruptedException {
        if (RedisServers.answers(PORT)) {
            try (Jedis admin = new Jedis(
                    new HostAndPort(RedisServers.HOST, PORT),
                    DefaultJedisClientConfig.builder().password(PASSWORD).build())) {
                admin.configSet("requirepass", "");
            }
        }
        RedisServers.stop(PORT);
        RedisServers.deleteFolder(folder);
    }

    /**
     * SETTINGS.md: user info without a colon is the password alone, and a ':' in a password is written %3A. The
     * store splits the <em>decoded</em> user info at its first colon, so the encoded colon becomes a user/password
     * separator: user "Real", password "Pass#1", and Redis answers WRONGPASS.
     */
    @Test
    void aPasswordAloneWithAnEncodedColonIsThePasswordAlone() {
        String url = "redis://Real%3APass%231@" + RedisServers.HOST + ":" + PORT;
        try (LockStore store = new RedisLockStoreProvider().create("edge", Map.of("url", url))) {
            assertTrue(store.tryAcquire("guarded", "owner", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertTrue(store.release("guarded", "owner"));
        }
    }

    /** A database that is not a number fails deployment naming the url key, not with a bare NumberFormatException. */
    @Test
    void aDatabaseThatIsNotANumberIsAConfigurationError() {
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> new RedisLockStoreProvider()
                        .create("edge", Map.of("url", "redis://" + RedisServers.HOST + ":6379/one"))
                        .close());
        assertEquals(LockConfigurationException.class, e.getClass(), e.toString());
        assertEquals("url", ((LockConfigurationException) e).key().orElse(null));
    }

    /** Same on Cluster: the check meant to reject a database other than 0 throws NumberFormatException instead. */
    @Test
    void aClusterDatabaseThatIsNotANumberIsAConfigurationError() {
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> new RedisLockStoreProvider()
                        .create(
                                "edge",
                                Map.of(
                                        "nodes",
                                        RedisServers.HOST + ":7000",
                                        "url",
                                        "redis://" + RedisServers.HOST + ":7001/x"))
                        .close());
        assertEquals(LockConfigurationException.class, e.getClass(), e.toString());
    }

    /** A negative database can never be selected: it should fail deployment, not every call afterwards. */
    @Test
    void aNegativeDatabaseIsAConfigurationError() {
        assertThrows(
                LockConfigurationException.class,
                () -> new RedisLockStoreProvider()
                        .create("edge", Map.of("url", "redis://" + RedisServers.HOST + ":6379/-1"))
                        .close());
    }

    /** A query (?password=..., ?ssl=true, ?timeout=...) is ignored without a word; the password is not sent. */
    @Test
    void aUrlQueryIsNotIgnoredSilently() {
        assertThrows(
                LockConfigurationException.class,
                () -> new RedisLockStoreProvider()
                        .create(
                                "edge",
                                Map.of("url", "redis://" + RedisServers.HOST + ":" + PORT + "/0?password=x%3Ay"))
                        .close());
    }

    /** Without a port the URL is rebuilt with 6379 from its decoded parts: %3A comes back as a bare separator. */
    @Test
    void addingTheDefaultPortKeepsAnEncodedColon() {
        java.net.URI url = RedisKeys.withDefaultPort(java.net.URI.create("redis://Real%3APass%231@cache"));
        assertEquals("Real%3APass%231", url.getRawUserInfo());
    }
}

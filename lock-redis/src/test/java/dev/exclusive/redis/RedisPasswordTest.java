package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Credentials set on their own: a Redis on port 7140 started with {@code requirepass} (a password with the
 * characters that break URLs) and an ACL user, reached through the {@code password} and {@code user} settings.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisPasswordTest {

    private static final int PORT = 7140;
    private static final String PASSWORD = "Real#P@ss%w/rd";
    private static final String USER = "locker";
    private static final String USER_PASSWORD = "L0cker:#Pw";
    private static final LockHolder HOLDER = new LockHolder("password-test", "main", "");
    private static final String URL = "redis://" + RedisServers.HOST + ":" + PORT;
    private static Path folder;

    @BeforeAll
    static void startProtectedRedis() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-password");
        RedisServers.start(PORT, folder, "--requirepass", PASSWORD);
        try (Jedis admin = admin()) {
            admin.aclSetUser(USER, "on", ">" + USER_PASSWORD, "~exclusive:*", "&exclusive:*", "+@all");
        }
    }

    @AfterAll
    static void stopProtectedRedis() throws IOException, InterruptedException {
        if (RedisServers.answers(PORT)) {
            try (Jedis admin = admin()) {
                admin.configSet("requirepass", ""); // so that the helper's redis-cli can shut it down
            }
        }
        RedisServers.stop(PORT);
        RedisServers.deleteFolder(folder);
    }

    @Test
    void aPasswordSetOnItsOwnOpensAProtectedRedis() {
        assertWorks(Map.of("url", URL, "password", PASSWORD));
    }

    @Test
    void thePasswordSettingWinsOverTheUrls() {
        assertWorks(Map.of("url", "redis://default:stale@" + RedisServers.HOST + ":" + PORT, "password", PASSWORD));
    }

    @Test
    void theUserSettingSelectsAnAclUser() {
        assertWorks(Map.of("url", URL, "user", USER, "password", USER_PASSWORD));
    }

    @Test
    void aPercentEncodedPasswordInTheUrlWorksToo() {
        assertWorks(Map.of("url", "redis://default:Real%23P%40ss%25w%2Frd@" + RedisServers.HOST + ":" + PORT + "/0"));
    }

    @Test
    void aWrongPasswordFailsTheFirstCallWithoutShowingIt() {
        try (LockStore store =
                new RedisLockStoreProvider().create("protected", Map.of("url", URL, "password", "Wr0ng#Guess"))) {
            LockStoreUnavailableException e = assertThrows(
                    LockStoreUnavailableException.class,
                    () -> store.tryAcquire("guarded", "owner", HOLDER, Duration.ofSeconds(30)));
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            assertFalse(trace.toString().contains("Wr0ng"), trace.toString());
            assertFalse(trace.toString().contains("Guess"), trace.toString());
        }
    }

    @Test
    void aRefusedCallPointsAtTheCredentialsAndPermissionsNotAtAnOutage() {
        try (Jedis admin = admin()) {
            admin.aclSetUser("no-keys", "on", ">No-keys#1", "~elsewhere:*", "&*", "+@all");
        }
        Map<String, Map<String, String>> refusals = Map.of(
                "a wrong password", Map.of("url", URL, "password", "Wr0ng#Guess"),
                "a user the keys are not granted to", Map.of("url", URL, "user", "no-keys", "password", "No-keys#1"));
        refusals.forEach((what, settings) -> {
            try (LockStore store = new RedisLockStoreProvider().create("protected", settings)) {
                LockStoreUnavailableException e = assertThrows(
                        LockStoreUnavailableException.class,
                        () -> store.tryAcquire("guarded", "owner", HOLDER, Duration.ofSeconds(30)));
                assertTrue(
                        e.getMessage().contains("check the store's user and password"), what + ": " + e.getMessage());
                assertFalse(e.getMessage().contains("running and reachable"), what + ": " + e.getMessage());
            }
        });
    }

    private static void assertWorks(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(settings);
        all.put("connect-timeout", "2s");
        try (LockStore store = new RedisLockStoreProvider().create("protected", all)) {
            assertTrue(store.tryAcquire("guarded", "owner", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertTrue(store.inspect("guarded").isPresent());
            assertTrue(store.release("guarded", "owner"));
            store.ping();
        }
    }

    private static Jedis admin() {
        return new Jedis(
                new HostAndPort(RedisServers.HOST, PORT),
                DefaultJedisClientConfig.builder().password(PASSWORD).build());
    }
}

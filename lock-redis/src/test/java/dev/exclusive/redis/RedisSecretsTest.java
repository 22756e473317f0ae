package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Secrets;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * No password reaches a message, a {@code toString}, a cause or a log: deployment errors and FFDC files print all
 * of them. Each case lists fragments of its password, any of which would betray it.
 */
class RedisSecretsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "'#' starts a fragment | redis://default:Tr0ub4dor#3xkcd@127.0.0.1:6379 | Tr0ub4dor,3xkcd",
                "'@' ends the user info early | redis://default:hunter@2Zebra@127.0.0.1:6379 | hunter,2Zebra",
                "'%' starts a bad escape | redis://default:Sur3ly%zzPass@127.0.0.1:6379 | Sur3ly,zzPass",
                "no host at all | redis://default:Tr0ub4dor#3xkcd | Tr0ub4dor,3xkcd",
                "'/' ends the host early | redis://default:Sl4sh/edPw@127.0.0.1:6379/0 | Sl4sh,edPw",
            })
    void aMalformedUrlIsRejectedWithoutShowingItsPassword(String why, String url, String fragments) {
        LockConfigurationException e = assertThrows(
                LockConfigurationException.class,
                () -> new RedisLockStoreProvider().create("shared", Map.of("url", url)));
        assertEquals("url", e.key().orElseThrow(), e.getMessage());
        assertHidden(e, fragments.split(","));
        assertTrue(e.getMessage().contains("percent-encoded"), "the message names the fix: " + e.getMessage());
        assertTrue(e.getMessage().contains("exclusive.store.shared.password"), e.getMessage());
        if (url.contains("@127.0.0.1:6379")) {
            assertTrue(e.getMessage().contains("redis://***@127.0.0.1:6379"), "shown masked: " + e.getMessage());
        }
    }

    @Test
    void aUrlThatIsNotARedisUrlIsShownWithoutItsUserInfo() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> RedisLockStore.builder().url(URI.create("http://default:S3cretPw@127.0.0.1:6379")));
        assertHidden(e, "S3cretPw");
        assertTrue(e.getMessage().contains("'http://***@127.0.0.1:6379'"), e.getMessage());
    }

    @Test
    void aStoreNamesNeitherItsUrlsPasswordNorItsPasswordSetting() {
        try (RedisLockStore store = (RedisLockStore) new RedisLockStoreProvider()
                .create(
                        "shared",
                        Map.of(
                                "url", "redis://default:Url%23Hidd3n@127.0.0.1:7149",
                                "password", "Sett1ng#Hidd3n",
                                "connect-timeout", "500ms"))) {
            assertHidden(store.toString(), "Hidd3n", "Sett1ng");
            LockStoreUnavailableException e = assertThrows(
                    LockStoreUnavailableException.class,
                    () -> store.tryAcquire("x", "owner", new LockHolder("n", "t", ""), Duration.ofSeconds(1)));
            assertHidden(e, "Hidd3n", "Sett1ng");
            assertTrue(e.getMessage().contains("redis://127.0.0.1:7149"), e.getMessage());
        }
    }

    @Test
    void jedisFailuresThatRepeatAUrlOrAPasswordArePassedOnMasked() {
        Secrets secrets = secretsOf("redis://default:Url%23Hidd3n@127.0.0.1:6379", "Sett1ng#Hidd3n");
        RedisFailures failures =
                new RedisFailures("shared", new RedisTopology(null, false, "redis://127.0.0.1:6379", secrets));
        JedisDataException jedis = new JedisDataException(
                "ERR cannot use redis://someone:Other%40Hidd3n@10.0.0.1:6379 with Sett1ng#Hidd3n",
                new IOException("Url#Hidd3n rejected"));
        LockStoreUnavailableException e = failures.unavailable("lock-a", "acquire", jedis);
        assertHidden(e, "Hidd3n", "Sett1ng");
        assertTrue(e.getMessage().contains("redis://***@10.0.0.1:6379"), e.getMessage());
        assertTrue(
                e.getCause().toString().startsWith(JedisDataException.class.getName()),
                "the failure's class is still named: " + e.getCause());
        assertEquals(List.of(jedis.getStackTrace()), List.of(e.getCause().getStackTrace()), "and its stack trace");

        JedisConnectionException harmless = new JedisConnectionException("Connection refused");
        assertTrue(secrets.mask(harmless) == harmless, "an exception without secrets is passed on as it is");
    }

    @Test
    void secretsAndSettingsDescribeThemselvesWithoutTheirValues() {
        Secrets secrets = secretsOf("redis://u:Url%23Hidd3n@h:1", "Sett1ng#Hidd3n");
        assertHidden(secrets.toString(), "Hidd3n", "Sett1ng");
        assertFalse(RedisLockStore.builder()
                .url(URI.create("redis://u:Url%23Hidd3n@h:1"))
                .password("Sett1ng#Hidd3n")
                .toString()
                .contains("Hidd3n"));
    }

    /** @return what a store with this url and password setting masks */
    private static Secrets secretsOf(String url, String password) {
        return new RedisTopology.Settings(
                        URI.create(url),
                        null,
                        password,
                        Set.of(),
                        null,
                        Set.of(),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(1),
                        1,
                        "shared")
                .secrets();
    }

    private static void assertHidden(Throwable e, String... fragments) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace)); // message, toString and every cause
        assertHidden(trace.toString(), fragments);
    }

    private static void assertHidden(String text, String... fragments) {
        for (String fragment : fragments) {
            assertFalse(text.contains(fragment), "'" + fragment + "' of the password shows in: " + text);
        }
    }
}

package dev.exclusive.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void urlUserInfoIsMaskedAlsoWhenThePasswordMakesTheUrlMalformed() {
        assertEquals(
                "on redis://***@cache:6379/0: refused",
                Secrets.rulesOnly().mask("on redis://app:pa#ss/w?x@cache:6379/0: refused"));
        assertEquals("'rediss://***@cache:6380'", Secrets.rulesOnly().mask("'rediss://:only-password@cache:6380'"));
    }

    @Test
    void urlsWithoutUserInfoAndUsageHintsStayAsTheyAre() {
        assertEquals(
                "cannot reach redis://cache:6379/0", Secrets.rulesOnly().mask("cannot reach redis://cache:6379/0"));
        assertEquals(
                "needs a url like redis://[user:password@]host[:port]",
                Secrets.rulesOnly().mask("needs a url like redis://[user:password@]host[:port]"));
    }

    @Test
    void passwordParametersAreMasked() {
        assertEquals(
                "jdbc:postgresql://db/app?user=app&password=***&ssl=true",
                Secrets.rulesOnly().mask("jdbc:postgresql://db/app?user=app&password=s3cret&ssl=true"));
        assertEquals(
                "{sentinel-password=***, mode=x}", Secrets.rulesOnly().mask("{sentinel-password=hunter2, mode=x}"));
    }

    @Test
    void knownSecretsAreMaskedWhereverTheyAppearAlsoPercentDecoded() {
        Secrets secrets = Secrets.of(Map.of(
                "url", "redis://app:p%40ss%23word@cache:6379",
                "Admin-Password", "Adm1nPa55",
                "pool-size", "16"));

        assertEquals(
                "login of app with '***' failed; admin ***; pool 16",
                secrets.mask("login of app with 'p@ss#word' failed; admin Adm1nPa55; pool 16"));
        assertEquals("url redis://***@cache:6379", secrets.mask("url redis://app:p%40ss%23word@cache:6379"));
    }

    @Test
    void aUrlAndAPasswordGivenOneByOneAreMaskedLikeSettings() {
        Secrets secrets = Secrets.rulesOnly()
                .withUrl("redis://default:Url%23Hidd3n@127.0.0.1:6379")
                .withValue("Sett1ng#Hidd3n")
                .withUrl(null)
                .withValue(null);

        assertEquals(
                "*** and *** and *** and redis://***@127.0.0.1:6379",
                secrets.mask("Url#Hidd3n and Url%23Hidd3n and Sett1ng#Hidd3n and"
                        + " redis://default:Url%23Hidd3n@127.0.0.1:6379"));
    }

    @Test
    void valuesTooShortToProtectAnythingAreNotSearchedFor() {
        Secrets secrets = Secrets.rulesOnly().withValue("ab").withUrl("redis://pw@cache:6379");

        assertEquals("a cab on redis://***@cache:6379 at pw", secrets.mask("a cab on redis://pw@cache:6379 at pw"));
        assertEquals("Secrets[1 masked]", secrets.toString(), "only the URL itself is known");
    }

    @Test
    void shownValuesOfSecretKeysHideTheSecretButKeepTheHost() {
        assertEquals("redis://***@cache:6379", Secrets.shown("url", "redis://app:s3cret@cache:6379"));
        assertEquals("redis://cache:6379", Secrets.shown("URL", "redis://cache:6379"));
        assertEquals("***", Secrets.shown("db-Password", "x"));
        assertEquals("/var/locks", Secrets.shown("directory", "/var/locks"));
    }

    @Test
    void aDescribedUrlKeepsSchemeHostAndPortOnly() {
        assertEquals(
                "'redis://***@cache:6379' (user info masked)",
                Secrets.describeUrl("redis://app:hunter@2Zebra@cache:6379/0?x=y"));
        assertEquals("'rediss://[::1]:6380'", Secrets.describeUrl("rediss://[::1]:6380#fragment"));
        assertEquals(
                "a url not shown here (it may hold a password)",
                Secrets.describeUrl("redis://default:Tr0ub4dor#3xkcd"));
        assertEquals("a url not shown here (it may hold a password)", Secrets.describeUrl("cache:6379"));
    }

    @Test
    void secretsDescribeThemselvesWithoutTheirValues() {
        Secrets secrets =
                Secrets.rulesOnly().withUrl("redis://u:Url%23Hidd3n@h:1").withValue("Sett1ng#Hidd3n");

        assertFalse(secrets.toString().contains("Hidd3n"), secrets.toString());
        assertFalse(secrets.toString().contains("Sett1ng"), secrets.toString());
    }

    @Test
    void aLoggableExceptionKeepsClassNamesAndStackButNotTheSecrets() {
        IllegalStateException cause = new IllegalStateException("connect to redis://app:s3cret@cache:6379 failed");
        RuntimeException failure = new RuntimeException("store down", cause);

        Throwable loggable = Secrets.rulesOnly().mask(failure);
        String printed = printed(loggable);

        assertTrue(printed.contains("java.lang.RuntimeException: store down"), printed);
        assertTrue(
                printed.contains(
                        "Caused by: java.lang.IllegalStateException: connect to redis://***@cache:6379 failed"),
                printed);
        assertTrue(printed.contains("SecretsTest.aLoggableExceptionKeepsClassNamesAndStackButNotTheSecrets"), printed);
        assertFalse(printed.contains("s3cret"), printed);
    }

    @Test
    void suppressedExceptionsAndCyclesAreCopiedMaskedToo() {
        RuntimeException failure = new RuntimeException("store down");
        IllegalStateException suppressed = new IllegalStateException("retry with password=s3cret failed", failure);
        failure.addSuppressed(suppressed);

        Throwable loggable = Secrets.rulesOnly().mask(failure);
        String printed = printed(loggable);

        assertEquals(1, loggable.getSuppressed().length);
        assertTrue(
                printed.contains("Suppressed: java.lang.IllegalStateException: retry with password=*** failed"),
                printed);
        assertFalse(printed.contains("s3cret"), printed);
    }

    @Test
    void anExceptionWithoutSecretsIsLoggedAsItIs() {
        RuntimeException failure = new RuntimeException("store down");

        assertSame(failure, Secrets.rulesOnly().mask(failure));
        assertNull(Secrets.rulesOnly().mask((Throwable) null));
        assertNull(Secrets.rulesOnly().mask((String) null));
    }

    private static String printed(Throwable failure) {
        StringWriter printed = new StringWriter();
        failure.printStackTrace(new PrintWriter(printed));
        return printed.toString();
    }
}

package dev.exclusive.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void urlUserInfoIsMaskedAlsoWhenThePasswordMakesTheUrlMalformed() {
        assertThat(Secrets.RULES.mask("on redis://app:pa#ss/w?x@cache:6379/0: refused"))
                .isEqualTo("on redis://***@cache:6379/0: refused");
        assertThat(Secrets.RULES.mask("'rediss://:only-password@cache:6380'")).isEqualTo("'rediss://***@cache:6380'");
    }

    @Test
    void urlsWithoutUserInfoAndUsageHintsStayAsTheyAre() {
        assertThat(Secrets.RULES.mask("cannot reach redis://cache:6379/0"))
                .isEqualTo("cannot reach redis://cache:6379/0");
        assertThat(Secrets.RULES.mask("needs a url like redis://[user:password@]host[:port]"))
                .isEqualTo("needs a url like redis://[user:password@]host[:port]");
    }

    @Test
    void passwordParametersAreMasked() {
        assertThat(Secrets.RULES.mask("jdbc:postgresql://db/app?user=app&password=s3cret&ssl=true"))
                .isEqualTo("jdbc:postgresql://db/app?user=app&password=***&ssl=true");
        assertThat(Secrets.RULES.mask("{sentinel-password=hunter2, mode=x}"))
                .isEqualTo("{sentinel-password=***, mode=x}");
    }

    @Test
    void knownSecretsAreMaskedWhereverTheyAppearAlsoPercentDecoded() {
        Secrets secrets = Secrets.of(Map.of(
                "url", "redis://app:p%40ss%23word@cache:6379",
                "Admin-Password", "Adm1nPa55",
                "pool-size", "16"));

        assertThat(secrets.mask("login of app with 'p@ss#word' failed; admin Adm1nPa55; pool 16"))
                .isEqualTo("login of app with '***' failed; admin ***; pool 16");
        assertThat(secrets.mask("url redis://app:p%40ss%23word@cache:6379")).isEqualTo("url redis://***@cache:6379");
    }

    @Test
    void shownValuesOfSecretKeysHideTheSecretButKeepTheHost() {
        assertThat(Secrets.shown("url", "redis://app:s3cret@cache:6379")).isEqualTo("redis://***@cache:6379");
        assertThat(Secrets.shown("URL", "redis://cache:6379")).isEqualTo("redis://cache:6379");
        assertThat(Secrets.shown("db-Password", "x")).isEqualTo("***");
        assertThat(Secrets.shown("directory", "/var/locks")).isEqualTo("/var/locks");
    }

    @Test
    void aLoggableExceptionKeepsClassNamesAndStackButNotTheSecrets() {
        IllegalStateException cause = new IllegalStateException("connect to redis://app:s3cret@cache:6379 failed");
        RuntimeException failure = new RuntimeException("store down", cause);

        Throwable loggable = Secrets.RULES.loggable(failure);
        StringWriter printed = new StringWriter();
        loggable.printStackTrace(new PrintWriter(printed));

        assertThat(printed.toString())
                .contains("java.lang.RuntimeException: store down")
                .contains("Caused by: java.lang.IllegalStateException: connect to redis://***@cache:6379 failed")
                .contains("SecretsTest.aLoggableExceptionKeepsClassNamesAndStackButNotTheSecrets")
                .doesNotContain("s3cret");
    }

    @Test
    void anExceptionWithoutSecretsIsLoggedAsItIs() {
        RuntimeException failure = new RuntimeException("store down");

        assertThat(Secrets.RULES.loggable(failure)).isSameAs(failure);
    }
}

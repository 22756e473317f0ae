package dev.exclusive.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockConfigurationEdgeTest {

    /**
     * lock lock-redis/SETTINGS.md: {@code password} is taken "as it is (no encoding, taken verbatim)", and the
     * provider's javadoc says "surrounding spaces included"; the provider reads it with values.get, not strip. But
     * lock-cdi strips every value before the provider sees it, so a password that ends in a space (possible from an
     * environment variable or a secret file) reaches Redis without it: WRONGPASS at the first call.
     */
    @Test
    void aPasswordReachesTheProviderVerbatim() {
        LockConfiguration configuration = LockConfiguration.read(
                new SmallRyeConfigBuilder()
                        .withSources(new PropertiesConfigSource(
                                Map.of(
                                        "exclusive.store.shared.type", "redis",
                                        "exclusive.store.shared.url", "redis://cache:6379",
                                        "exclusive.store.shared.password", " pass phrase "),
                                "test",
                                500))
                        .build(),
                new Problems());

        assertThat(configuration.stores().get("shared").get("password")).isEqualTo(" pass phrase ");
    }

    /**
     * MicroProfile Config maps EXCLUSIVE_DEFAULT_STORE to exclusive.default-store and
     * EXCLUSIVE_STORE_SHARED_CONNECT_TIMEOUT to exclusive.store.shared.connect-timeout, but SmallRye lists such a
     * variable (with no property of that name elsewhere) as exclusive.default.store: lock-cdi reports it as an unknown
     * key (although it read the value) and hands the provider "connect.timeout", which it rejects.
     */
    @Test
    void dashedKeysGivenAsEnvironmentVariables() {
        Problems problems = new Problems();
        LockConfiguration configuration = LockConfiguration.read(
                new SmallRyeConfigBuilder()
                        .withSources(new io.smallrye.config.EnvConfigSource(
                                Map.of(
                                        "EXCLUSIVE_STORE_SHARED_TYPE", "redis",
                                        "EXCLUSIVE_STORE_SHARED_CONNECT_TIMEOUT", "1s",
                                        "EXCLUSIVE_DEFAULT_STORE", "shared",
                                        "EXCLUSIVE_STORE_SHARED_URL", "redis://cache:6379"),
                                300))
                        .build(),
                problems);
        assertThat(problems.all()).isEmpty();
        assertThat(configuration.stores().get("shared")).containsEntry("connect-timeout", "1s");
    }
}

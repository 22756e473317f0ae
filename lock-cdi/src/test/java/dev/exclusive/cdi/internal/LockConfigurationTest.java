package dev.exclusive.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockConfigurationTest {

    @Test
    void toStringShowsEveryKeyButNoValueThatCanHoldASecret() {
        LockConfiguration configuration = LockConfiguration.read(
                new SmallRyeConfigBuilder()
                        .withSources(new PropertiesConfigSource(
                                Map.of(
                                        "exclusive.store.shared.type", "redis",
                                        "exclusive.store.shared.url", "redis://app:s3cret@cache:6379",
                                        "exclusive.store.shared.sentinel-password", "hunter2",
                                        "exclusive.store.db.PASSWORD", "Adm1n"),
                                "test",
                                500))
                        .build(),
                new Problems());

        String shown = configuration.toString();

        assertThat(shown).contains("type=redis", "url=", "sentinel-password=", "PASSWORD=");
        assertThat(shown).doesNotContain("s3cret", "hunter2", "Adm1n");
    }
}

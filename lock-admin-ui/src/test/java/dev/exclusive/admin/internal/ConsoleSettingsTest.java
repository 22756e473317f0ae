package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

class ConsoleSettingsTest {

    private static Config config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "test", 500))
                .build();
    }

    @Test
    void withNothingSetTheConsoleIsAtExclusiveForRoleExclusiveAdmin() {
        ConsoleSettings settings = ConsoleSettings.read(config(Map.of()));

        assertThat(settings)
                .isEqualTo(new ConsoleSettings("exclusive", "exclusive-admin", Duration.ofSeconds(1), 10_000));
    }

    @Test
    void everySettingComesFromMicroProfileConfig() {
        ConsoleSettings settings = ConsoleSettings.read(config(Map.of(
                ConsoleSettings.ROUTE, "/ops/locks/",
                ConsoleSettings.ROLE, "lock-ops",
                ConsoleSettings.REFRESH, "500",
                ConsoleSettings.SCAN_LIMIT, "2000")));

        assertThat(settings).isEqualTo(new ConsoleSettings("ops/locks", "lock-ops", Duration.ofMillis(500), 2000));
    }

    @Test
    void badValuesAreAllReportedWithTheirKeys() {
        assertThatThrownBy(() -> ConsoleSettings.read(config(Map.of(
                        ConsoleSettings.ROUTE, "ops locks",
                        ConsoleSettings.REFRESH, "soon",
                        ConsoleSettings.SCAN_LIMIT, "0"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exclusive.console.route must be a path without spaces")
                .hasMessageContaining("exclusive.console.refresh-millis must be a whole number, got 'soon'")
                .hasMessageContaining("exclusive.console.scan-limit must be positive, got 0");
    }
}

package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that other applications can reach (every type but {@code memory}) and has no configured prefix gets the
 * application's name from the container as its prefix, so that applications on one Redis, database or folder can
 * neither take nor list nor force-release each other's locks. Without a name (Java SE) the startup warns and names
 * the key to set.
 */
class ApplicationPrefixTest {

    private static Map<String, String> stores(Path directory) {
        return Map.of(
                "exclusive.store.files.type", "file",
                "exclusive.store.files.directory", directory.toString(),
                "exclusive.store.named.type", "file",
                "exclusive.store.named.directory", directory.resolve("named").toString(),
                "exclusive.store.named.prefix", "shop-eu:",
                "exclusive.store.local.type", "memory",
                "exclusive.default-store", "files");
    }

    private static String fullName(Deployment deployment, String store) {
        return deployment
                .select(LockRegistry.class)
                .store(store)
                .lock("report", Duration.ofSeconds(5))
                .name();
    }

    @Test
    void inAContainerASharedStoreWithoutPrefixUsesTheApplicationsName(@TempDir Path directory) {
        FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:app/AppName", "shop"));
        try (LogRecorder log = new LogRecorder();
                Deployment deployment = Deployment.start(stores(directory))) {

            assertThat(fullName(deployment, "files")).isEqualTo("shop:report");
            assertThat(fullName(deployment, "named"))
                    .as("a configured prefix wins")
                    .isEqualTo("shop-eu:report");
            assertThat(fullName(deployment, "local"))
                    .as("memory is never shared")
                    .isEqualTo("report");
            assertThat(log.records)
                    .filteredOn(record -> record.getLevel() == Level.INFO)
                    .extracting(record -> record.getParameters()[3])
                    .containsExactly("shop:");
        } finally {
            jndi.close();
        }
    }

    @Test
    void withoutAnApplicationNameTheModuleNameIsUsed(@TempDir Path directory) {
        FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:module/ModuleName", "shop-web"));
        try (Deployment deployment = Deployment.start(stores(directory))) {

            assertThat(fullName(deployment, "files")).isEqualTo("shop-web:report");
        } finally {
            jndi.close();
        }
    }

    @Test
    void aLongApplicationNameIsCutToFitAPrefix(@TempDir Path directory) {
        String longName = "a-very-long-application-name-that-an-ear-might-well-have-v2";
        FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:app/AppName", longName));
        try (Deployment deployment = Deployment.start(stores(directory))) {

            assertThat(fullName(deployment, "files")).isEqualTo(longName.substring(0, 54) + ":report");
        } finally {
            jndi.close();
        }
    }

    @Test
    void inJavaSeThereIsNoPrefixAndAWarningNamesTheKeyToSet(@TempDir Path directory) {
        try (LogRecorder log = new LogRecorder();
                Deployment deployment = Deployment.start(stores(directory))) {

            assertThat(fullName(deployment, "files")).isEqualTo("report");
            assertThat(log.records)
                    .filteredOn(record -> record.getLevel() == Level.WARNING)
                    .hasSize(1)
                    .first()
                    .satisfies(warning -> assertThat(
                                    java.text.MessageFormat.format(warning.getMessage(), warning.getParameters()))
                            .contains("Store 'files' (file) has no prefix")
                            .contains("can list and force-release its locks")
                            .contains("Set exclusive.store.files.prefix"));
        }
    }
}

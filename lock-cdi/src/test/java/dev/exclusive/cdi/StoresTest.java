package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoresTest {

    @Dependent
    static class Client {
        @Inject
        LockRegistry defaultRegistry;

        @Inject
        @Store("files")
        LockRegistry files;

        @Inject
        @Store("local")
        LockRegistry local;
    }

    @Test
    void withoutConfigurationTheDefaultRegistryIsOneMemoryStore() {
        try (Deployment deployment = Deployment.start(Map.of())) {
            LockRegistry registry = deployment.select(LockRegistry.class);

            assertThat(registry.storeNames()).containsExactly("memory");
            assertThat(registry.storeName()).isEqualTo("memory");
            assertThat(deployment
                            .select(LockRegistry.class, Store.Literal.of("memory"))
                            .storeName())
                    .isEqualTo("memory");
            assertThat(registry.lock("job", Duration.ofSeconds(5)).get()).isTrue();
        }
    }

    @Test
    void eachConfiguredStoreIsInjectableByItsQualifierAndTheDefaultStoreUnqualified(@TempDir Path directory) {
        Map<String, String> config = Map.of(
                "exclusive.store.local.type", "memory",
                "exclusive.store.files.type", "file",
                "exclusive.store.files.directory", directory.toString(),
                "exclusive.store.files.prefix", "app:",
                "exclusive.default-store", "files",
                "exclusive.instance-name", "node-7");
        try (Deployment deployment = Deployment.start(config, Client.class)) {
            Client client = deployment.select(Client.class);

            assertThat(client.defaultRegistry.storeName()).isEqualTo("files");
            assertThat(client.files.storeName()).isEqualTo("files");
            assertThat(client.local.storeName()).isEqualTo("local");
            assertThat(client.defaultRegistry.storeNames()).containsExactly("files", "local");
            assertThat(client.defaultRegistry.instanceName()).isEqualTo("node-7");

            assertThat(client.files.lock("report", Duration.ofSeconds(5)).get()).isTrue();
            List<LockInfo> live = client.files.liveLocks("", 10);
            assertThat(live).extracting(LockInfo::name).containsExactly("app:report");
            assertThat(live.get(0).holder().instance()).isEqualTo("node-7");
            assertThat(client.local.liveLocks("", 10)).isEmpty();
            assertThat(directory).isNotEmptyDirectory();
        }
    }

    @Test
    void everyRegistryBeanIsListedUnderAny() {
        Map<String, String> config = Map.of(
                "exclusive.store.a.type", "memory",
                "exclusive.store.b.type", "memory",
                "exclusive.default-store", "b");
        try (Deployment deployment = Deployment.start(config)) {
            List<String> stores = deployment
                    .select(new TypeLiteral<jakarta.enterprise.inject.Instance<LockRegistry>>() {})
                    .select(Any.Literal.INSTANCE)
                    .stream()
                    .map(LockRegistry::storeName)
                    .sorted()
                    .toList();

            assertThat(stores).containsExactly("a", "b", "b");
        }
    }

    @Test
    void storesAreClosedWhenTheContainerShutsDown() {
        Deployment deployment =
                Deployment.start(Map.of("exclusive.store.p.type", "probe", "exclusive.store.p.id", "closing"));
        ProbeLockStoreProvider.ProbeStore store = ProbeLockStoreProvider.INSTANCES.get("closing");
        assertThat(store.closed).isFalse();

        deployment.close();

        assertThat(store.closed).isTrue();
    }
}

package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OverridesTest {

    @ApplicationScoped
    static class Imports {
        @Inject
        LockRegistry registry;

        @Exclusive(value = "imports", ttl = 1)
        public List<LockInfo> run() {
            return registry.store("memory").liveLocks("", 10);
        }

        @Exclusive(value = "other", ttl = 1)
        public List<LockInfo> other() {
            return registry.store("memory").liveLocks("", 10);
        }

        @Exclusive(value = "named", ttl = 1)
        public List<LockInfo> renamed(String id) {
            return registry.store("memory").liveLocks("", 10);
        }

        @Exclusive(value = "waits")
        public String waits() {
            return "ran";
        }

        @Exclusive(value = "skips")
        public String skips() {
            return "ran";
        }
    }

    @ApplicationScoped
    static class Exports {
        @Inject
        LockRegistry registry;

        @Exclusive(value = "exports", ttl = 1)
        public List<LockInfo> run() {
            return registry.store("files").liveLocks("", 10);
        }
    }

    private static Duration lease(LockInfo lock) {
        return Duration.between(lock.acquiredAt(), lock.expiresAt());
    }

    private static Map<String, String> config(java.nio.file.Path directory) {
        String imports = Imports.class.getName();
        Map<String, String> config = new HashMap<>();
        config.put("exclusive.store.memory.type", "memory");
        config.put("exclusive.store.files.type", "file");
        config.put("exclusive.store.files.directory", directory.toString());
        config.put("exclusive.default-store", "memory");
        config.put("Exclusive/ttl", "5");
        config.put(imports + "/Exclusive/ttl", "7");
        config.put(imports + "/run/Exclusive/ttl", "9");
        config.put(imports + "/Exclusive/store", "memory");
        config.put("Exclusive/store", "files");
        config.put(imports + "/renamed/Exclusive/value", "renamed:{0}");
        config.put(imports + "/renamed/Exclusive/unit", "MINUTES");
        config.put(imports + "/waits/Exclusive/maxWait", "5");
        config.put(imports + "/skips/Exclusive/onBusy", "skip");
        return config;
    }

    @Test
    void methodKeysWinOverClassKeysWhichWinOverGlobalKeysWhichWinOverTheAnnotation(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path directory) {
        try (Deployment deployment = Deployment.start(config(directory), Imports.class, Exports.class)) {
            Imports imports = deployment.select(Imports.class);

            assertThat(lease(imports.run().get(0))).isEqualTo(Duration.ofSeconds(9));
            assertThat(lease(imports.other().get(0))).isEqualTo(Duration.ofSeconds(7));
            List<LockInfo> exports = deployment.select(Exports.class).run();
            assertThat(exports).extracting(LockInfo::name).containsExactly("exports");
            assertThat(lease(exports.get(0))).isEqualTo(Duration.ofSeconds(5));
        }
    }

    @Test
    void valueUnitWaitAndOnBusyAreOverridable(@org.junit.jupiter.api.io.TempDir java.nio.file.Path directory) {
        try (Deployment deployment = Deployment.start(config(directory), Imports.class, Exports.class)) {
            Imports imports = deployment.select(Imports.class);
            LockRegistry registry = deployment.select(LockRegistry.class);

            LockInfo renamed = imports.renamed("42").get(0);
            assertThat(renamed.name()).isEqualTo("renamed:42");
            assertThat(lease(renamed)).isEqualTo(Duration.ofMinutes(7));

            Lock skipsHeld = registry.lock("skips", Duration.ofSeconds(10));
            assertThat(skipsHeld.get()).isTrue();
            assertThat(imports.skips()).isNull();

            Lock waitsHeld = registry.lock("waits", Duration.ofSeconds(10));
            assertThat(waitsHeld.get()).isTrue();
            ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
            try {
                releaser.schedule(waitsHeld::release, 200, TimeUnit.MILLISECONDS);
                assertThat(imports.waits())
                        .as("waited for the release instead of throwing at once")
                        .isEqualTo("ran");
            } finally {
                releaser.shutdownNow();
            }
        }
    }
}

package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockRegistryTest {

    @Test
    void aFailingAuditTrailNeverFailsTheForceReleaseAndIsLoggedOnceWithoutSecrets() {
        FaultyStore store = new FaultyStore(new MemoryLockStore());
        store.auditFails = true;
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger("dev.exclusive");
        logger.addHandler(capture);
        try (LockRegistry registry = LockRegistry.builder().store("s", store).build()) {
            assertTrue(registry.lock("stuck", 30).get());
            assertTrue(registry.forceRelease("stuck", "alice"), "released although the trail is down");
            assertFalse(registry.lock("stuck", 30).isLocked());
            assertTrue(registry.lock("other", 30).get());
            assertTrue(registry.forceRelease("other", "alice"));
        } finally {
            logger.removeHandler(capture);
        }
        List<LogRecord> warnings = logged.stream()
                .filter(record -> record.getLevel() == java.util.logging.Level.WARNING)
                .toList();
        assertEquals(1, warnings.size(), "warned once per store");
        String message = new java.util.logging.SimpleFormatter().formatMessage(warnings.get(0));
        assertTrue(message.contains("Store 's'") && message.contains("'stuck'"), message);
        assertFalse(message.contains("hunter2"), message);
    }

    @Test
    void withNoStoreTheRegistryHasOneMemoryStore() {
        try (LockRegistry registry = LockRegistry.builder().build()) {
            assertEquals("memory", registry.storeName());
            assertEquals(Set.of("memory"), registry.storeNames());
            assertTrue(registry.lock("x", 10).get());
        }
    }

    @Test
    void theFirstStoreIsTheDefaultUnlessOneIsNamed() {
        try (LockRegistry registry = LockRegistry.builder()
                .store("a", new MemoryLockStore())
                .store("b", new MemoryLockStore())
                .build()) {
            assertEquals("a", registry.storeName());
        }
        try (LockRegistry registry = LockRegistry.builder()
                .store("a", new MemoryLockStore())
                .store("b", new MemoryLockStore())
                .defaultStore("b")
                .build()) {
            assertEquals("b", registry.storeName());
        }
    }

    @Test
    void storeViewsShareStoresButKeepLocksApart() {
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .store("other", new MemoryLockStore(), "shop:")
                .build()) {
            LockRegistry other = registry.store("other");
            assertEquals("other", other.storeName());
            assertSame(registry, registry.store("local"));
            assertEquals("shop:x", other.lock("x", 10).name());
            assertTrue(registry.lock("x", 10).get());
            assertTrue(other.lock("x", 10).get(), "another store is another lock");
            assertEquals(
                    List.of("shop:x"),
                    other.liveLocks("", 10).stream().map(LockInfo::name).toList());
        }
    }

    @Test
    void unknownStoreNamesTheConfiguredOnes() {
        try (LockRegistry registry = LockRegistry.builder()
                .store("redis", new MemoryLockStore())
                .store("local", new MemoryLockStore())
                .build()) {
            UnknownStoreException e = assertThrows(UnknownStoreException.class, () -> registry.store("rediss"));
            assertEquals("Unknown store 'rediss'; configured stores: local, redis", e.getMessage());
            assertEquals(Set.of("local", "redis"), e.known());
            assertEquals("rediss", e.storeName().orElseThrow());
        }
        assertThrows(
                UnknownStoreException.class,
                () -> LockRegistry.builder()
                        .store("a", new MemoryLockStore())
                        .defaultStore("b")
                        .build());
    }

    @Test
    void unknownStoreTypeNamesTheInstalledTypesAndTheMissingModule() {
        UnknownStoreException e = assertThrows(
                UnknownStoreException.class,
                () -> LockRegistry.builder().store("shared", "redis", Map.of("url", "redis://localhost")));
        assertTrue(e.getMessage().contains("lock-redis"), e.getMessage());
        assertTrue(e.getMessage().contains("file") && e.getMessage().contains("memory"), e.getMessage());
    }

    @Test
    void badStoreNamesAndPrefixesAreRejected() {
        assertThrows(
                IllegalArgumentException.class, () -> LockRegistry.builder().store("", new MemoryLockStore()));
        assertThrows(
                IllegalArgumentException.class, () -> LockRegistry.builder().store("a b", new MemoryLockStore()));
        assertThrows(
                IllegalArgumentException.class,
                () -> LockRegistry.builder().store("a", new MemoryLockStore()).store("a", new MemoryLockStore()));
        assertThrows(
                IllegalArgumentException.class,
                () -> LockRegistry.builder().store("a", new MemoryLockStore(), "x".repeat(56)));
        assertThrows(
                IllegalArgumentException.class,
                () -> LockRegistry.builder().store("a", new MemoryLockStore(), "tab\t"));
    }

    @Test
    void instanceNameIsRecordedAsHolderAndDefaultsToHostAndPid() {
        try (LockRegistry registry = LockRegistry.builder().build()) {
            assertTrue(
                    registry.instanceName()
                            .endsWith("/" + ProcessHandle.current().pid()),
                    registry.instanceName());
        }
        try (LockRegistry registry =
                LockRegistry.builder().instanceName("node-1").build()) {
            assertTrue(registry.lock("x", 10).purpose("Imports#run").get());
            LockHolder holder = registry.liveLocks("x", 1).get(0).holder();
            assertEquals(new LockHolder("node-1", Thread.currentThread().getName(), "Imports#run"), holder);
        }
    }

    @Test
    void listenersHearEveryStepAndCannotBreakTheCaller() {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockListener recorder = new LockListener() {
            @Override
            public void acquired(Lock lock) {
                heard.add("acquired " + lock.name() + " " + lock.fence().getAsLong());
            }

            @Override
            public void busy(Lock lock) {
                heard.add("busy " + lock.name());
            }

            @Override
            public void released(Lock lock) {
                heard.add("released " + lock.name());
            }

            @Override
            public void forceReleased(String storeName, String name, boolean released) {
                heard.add("forced " + storeName + " " + name + " " + released);
            }
        };
        LockListener broken = new LockListener() {
            @Override
            public void acquired(Lock lock) {
                throw new IllegalStateException("listener bug");
            }
        };
        try (LockRegistry registry =
                LockRegistry.builder().listener(broken).listener(recorder).build()) {
            Lock lock = registry.lock("x", 10);
            assertTrue(lock.get());
            assertFalse(registry.lock("x", 10).block(Duration.ofMillis(20)));
            assertTrue(lock.release());
            assertTrue(registry.lock("x", 10).get());
            assertTrue(registry.forceRelease("x"));
        }
        assertEquals(List.of("acquired x 1", "busy x", "released x", "acquired x 2", "forced memory x true"), heard);
    }

    @Test
    void workResultIsReturnedWhenTheReleaseCannotReachTheStore(@TempDir Path folder) throws IOException {
        Path locks = folder.resolve("locks");
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(locks)).build()) {
            LockResult<String> result = registry.lock("x", 10).get(() -> {
                deleteRecursively(locks); // the store's folder vanishes while the work runs
                return "done";
            });
            assertEquals("done", result.value(), "the work ran; its result is not lost to the failed release");

            IOException thrown = new IOException("work failed");
            Files.createDirectories(locks);
            IOException caught = assertThrows(
                    IOException.class,
                    () -> registry.lock("y", 10).get(() -> {
                        deleteRecursively(locks);
                        throw thrown;
                    }));
            assertSame(thrown, caught);
            assertEquals(LockStoreUnavailableException.class, caught.getSuppressed()[0].getClass());
        }
    }

    private static void deleteRecursively(Path folder) throws IOException {
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}

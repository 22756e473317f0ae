package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockRegistry;
import dev.exclusive.spi.LockStoreProvider;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JpaLockStoreProviderTest {

    @Test
    void providerIsFoundByTypeAndBuildsAWorkingStoreFromSettings() {
        assertInstanceOf(
                JpaLockStoreProvider.class,
                LockStoreProvider.forType("jpa", getClass().getClassLoader()));
        Map<String, String> settings = Map.of(
                "persistence-unit",
                "exclusive-h2",
                "table",
                "exclusive_lock_configured",
                "create-table",
                "true",
                "retention",
                "P1D",
                "min-backoff",
                "PT0.01S",
                "max-backoff",
                "1",
                "timeout",
                "PT3S",
                "prefix",
                "shop:");
        try (LockRegistry registry =
                LockRegistry.builder().store("db", "jpa", settings).build()) {
            Lock lock = registry.lock("x", 10);
            assertEquals("shop:x", lock.name());
            assertTrue(lock.get());
            assertTrue(lock.release());
        }
    }

    @Test
    void unknownKeysAreRejectedNamingTheKey() {
        LockConfigurationException e = assertThrows(
                LockConfigurationException.class,
                () -> new JpaLockStoreProvider()
                        .create("db", Map.of("persistence-unit", "exclusive-h2", "persistance-unit", "typo")));
        assertEquals("persistance-unit", e.key().orElseThrow());
        assertTrue(
                e.getMessage().contains("persistance-unit") && e.getMessage().contains("known settings"),
                e.getMessage());
    }

    @Test
    void badValuesNameTheKeyAndTheFix() {
        assertKey("persistence-unit", Map.of());
        assertKey("persistence-unit", Map.of("persistence-unit", "no-such-unit"));
        assertKey("create-table", settings("create-table", "yes"));
        assertKey("retention", settings("retention", "a week"));
        assertKey("retention", settings("retention", "0"));
        assertKey("timeout", settings("timeout", "-PT1S"));
        Map<String, String> inverted = settings("min-backoff", "PT1S");
        inverted.put("max-backoff", "PT0.5S");
        assertKey("min-backoff", inverted);
        assertKey("table", settings("table", "locks; DROP TABLE users"));
    }

    private static Map<String, String> settings(String key, String value) {
        Map<String, String> settings = new HashMap<>();
        settings.put("persistence-unit", "exclusive-h2");
        settings.put(key, value);
        return settings;
    }

    private static void assertKey(String key, Map<String, String> settings) {
        LockConfigurationException e = assertThrows(
                LockConfigurationException.class,
                () -> new JpaLockStoreProvider().create("db", settings),
                String.valueOf(settings));
        assertEquals(key, e.key().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().contains("db"), e.getMessage());
    }
}

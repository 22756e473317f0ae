package dev.exclusive.memory;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.StoreSettings;
import java.util.Map;
import java.util.TreeSet;

/**
 * Builds {@code memory} stores. Their only settings bound the audit trail: {@code audit-max-records} and
 * {@code audit-max-age} (see {@link AuditLimits}).
 */
public final class MemoryLockStoreProvider implements LockStoreProvider {

    @Override
    public String type() {
        return "memory";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        for (String key : new TreeSet<>(settings.keySet())) {
            if (!AuditLimits.SETTINGS.contains(key)) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "' of type memory takes no settings but "
                                + String.join(" and ", new TreeSet<>(AuditLimits.SETTINGS)) + ", got '" + key
                                + "'; remove exclusive.store." + storeName + "." + key,
                        storeName,
                        key,
                        null);
            }
        }
        AuditLimits limits = AuditLimits.of(StoreSettings.of(type(), storeName, settings, AuditLimits.SETTINGS));
        return new MemoryLockStore(System::nanoTime, limits);
    }
}

package dev.exclusive.memory;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.util.Map;

/** Builds {@code memory} stores; they take no settings. */
public final class MemoryLockStoreProvider implements LockStoreProvider {

    @Override
    public String type() {
        return "memory";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        if (!settings.isEmpty()) {
            String key = settings.keySet().iterator().next();
            throw new LockConfigurationException(
                    "Store '" + storeName + "' of type memory takes no settings, got '" + key
                            + "'; remove exclusive.store." + storeName + "." + key,
                    storeName,
                    key,
                    null);
        }
        return new MemoryLockStore();
    }
}

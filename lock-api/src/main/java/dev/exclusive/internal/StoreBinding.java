package dev.exclusive.internal;

import dev.exclusive.LockNames;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.LockStore;
import java.util.function.Supplier;

/**
 * A store as the registry configured it: its name, the store, and the prefix put before every lock name.
 *
 * @param name   the store's configured name
 * @param store  the store
 * @param prefix prepended to lock names; may be empty
 */
public record StoreBinding(String name, LockStore store, String prefix) {

    /** @return {@code name} with this store's prefix */
    public String fullName(String name) {
        return prefix.isEmpty() ? name : prefix + name;
    }

    /** @return the {@link LockNames#group(String) group} of a full name, judged without this store's prefix */
    public String group(String fullName) {
        return LockNames.group(fullName.startsWith(prefix) ? fullName.substring(prefix.length()) : fullName);
    }

    /**
     * Runs a store call, adding the store's name and the lock's to an unavailability the store reported
     * without them. For calls off the hot path; hot paths catch and call {@link #unavailable} themselves.
     */
    public <T> T call(String lockName, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (LockStoreUnavailableException e) {
            throw unavailable(lockName, e);
        }
    }

    /** @return {@code e}, or a copy that names this store and {@code lockName} where {@code e} did not */
    public LockStoreUnavailableException unavailable(String lockName, LockStoreUnavailableException e) {
        if (e.storeName().isPresent() && (lockName == null || e.lockName().isPresent())) {
            return e;
        }
        String what = lockName == null ? "" : " for lock '" + lockName + "'";
        return new LockStoreUnavailableException(
                "Store '" + name + "' is unavailable" + what + ": " + e.getMessage(),
                lockName,
                name,
                e.getCause() == null ? e : e.getCause());
    }
}

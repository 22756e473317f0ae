package dev.exclusive.spi;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.UnknownStoreException;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Builds stores of one type from settings, so that configuration can name stores by type
 * ({@code exclusive.store.shared.type=redis}). Implementations are registered in
 * {@code META-INF/services/dev.exclusive.spi.LockStoreProvider} and need a public no-argument constructor.
 */
public interface LockStoreProvider {

    /** @return the type this provider builds, such as {@code memory}, {@code file}, {@code redis}, {@code jpa} */
    String type();

    /**
     * Builds a store.
     *
     * @param storeName the configured store's name, for messages
     * @param settings  the store's settings with the {@code exclusive.store.<name>.} prefix removed, and without
     *                  {@code type} and {@code prefix}, which the core handles
     * @return a new store, which the caller closes
     * @throws LockConfigurationException if a setting is missing, malformed or unknown: the message names the
     *                                    key and the fix
     */
    LockStore create(String storeName, Map<String, String> settings);

    /**
     * Builds a store whose background threads (if it has any) come from {@code threads}: inside a Jakarta EE
     * server, the container's managed thread factory. The default ignores {@code threads}, for stores without
     * threads of their own.
     *
     * @param storeName the configured store's name, for messages
     * @param settings  as for {@link #create(String, Map)}
     * @param threads   where the store's background threads come from; wrap it in {@link NamedThreads}
     * @return a new store, which the caller closes
     * @throws LockConfigurationException if a setting is missing, malformed or unknown
     */
    default LockStore create(String storeName, Map<String, String> settings, ThreadFactory threads) {
        return create(storeName, settings);
    }

    /**
     * Finds the provider of a store type with {@link ServiceLoader}.
     *
     * @param type        the store type
     * @param classLoader where to look
     * @return the provider
     * @throws UnknownStoreException if none is installed; the message lists the installed types and the module
     *                               that brings the missing one
     */
    static LockStoreProvider forType(String type, ClassLoader classLoader) {
        Map<String, LockStoreProvider> providers = new TreeMap<>();
        for (LockStoreProvider provider : ServiceLoader.load(LockStoreProvider.class, classLoader)) {
            providers.putIfAbsent(provider.type(), provider);
        }
        LockStoreProvider provider = providers.get(type);
        if (provider == null) {
            String module = switch (String.valueOf(type)) {
                case "redis" -> " (add dev.exclusive:lock-redis to the application)";
                case "jpa" -> " (add dev.exclusive:lock-jpa to the application)";
                default -> "";
            };
            throw new UnknownStoreException(
                    "Unknown store type '" + type + "'" + module + "; installed types: "
                            + String.join(", ", providers.keySet()),
                    null,
                    providers.keySet());
        }
        return provider;
    }

    /**
     * Builds a store of {@code type} from configuration settings: {@code type} and {@code prefix} (which the
     * registry handles) are left out of what the provider receives.
     *
     * @param storeName   the configured store's name
     * @param type        the store type
     * @param settings    the store's settings, possibly with {@code type} and {@code prefix}
     * @param classLoader where to look for the provider
     * @return a new store, which the caller closes
     * @throws UnknownStoreException      if no provider of that type is installed
     * @throws LockConfigurationException if the provider rejects a setting
     */
    static LockStore create(String storeName, String type, Map<String, String> settings, ClassLoader classLoader) {
        return create(storeName, type, settings, classLoader, Executors.defaultThreadFactory());
    }

    /**
     * {@link #create(String, String, Map, ClassLoader)} with the factory the store's background threads come
     * from.
     *
     * @param storeName   the configured store's name
     * @param type        the store type
     * @param settings    the store's settings, possibly with {@code type} and {@code prefix}
     * @param classLoader where to look for the provider
     * @param threads     where the store's background threads come from
     * @return a new store, which the caller closes
     * @throws UnknownStoreException      if no provider of that type is installed
     * @throws LockConfigurationException if the provider rejects a setting
     */
    static LockStore create(
            String storeName,
            String type,
            Map<String, String> settings,
            ClassLoader classLoader,
            ThreadFactory threads) {
        Map<String, String> providerSettings = new java.util.HashMap<>(settings);
        providerSettings.remove("type");
        providerSettings.remove("prefix");
        return forType(type, classLoader).create(storeName, Map.copyOf(providerSettings), threads);
    }
}

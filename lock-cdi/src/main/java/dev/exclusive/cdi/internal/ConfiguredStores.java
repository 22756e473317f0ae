package dev.exclusive.cdi.internal;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockListener;
import dev.exclusive.LockNames;
import dev.exclusive.LockRegistry;
import dev.exclusive.UnknownStoreException;
import dev.exclusive.memory.MemoryLockStore;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;

/**
 * The stores of a deployment, built from {@link LockConfiguration} through their {@link LockStoreProvider}s.
 * Built here rather than by {@code LockRegistry.Builder.store(name, type, settings)} so that the readiness check
 * can ping each store, and so that every failing store is reported, not only the first.
 */
final class ConfiguredStores {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    /** The store a deployment without any {@code exclusive.store.*} key gets. */
    static final String FALLBACK_STORE = "memory";

    private final Map<String, LockStore> stores;
    private final Map<String, String> prefixes;
    private final Map<String, String> types;
    private final Map<String, Secrets> secrets;
    private final String defaultStore;
    private final String instanceName;
    private final ThreadFactory threads;

    private ConfiguredStores(
            Map<String, LockStore> stores,
            Map<String, String> prefixes,
            Map<String, String> types,
            Map<String, Secrets> secrets,
            String defaultStore,
            String instanceName,
            ThreadFactory threads) {
        this.stores = stores;
        this.prefixes = prefixes;
        this.types = types;
        this.secrets = secrets;
        this.defaultStore = defaultStore;
        this.instanceName = instanceName;
        this.threads = threads;
    }

    /**
     * Builds every configured store, adding a problem for each that fails; on any problem the stores that were
     * built are closed again and the result holds none.
     *
     * @param threads where the stores' and the registry's background threads come from (the container's managed
     *                thread factory, when there is one)
     */
    static ConfiguredStores build(
            LockConfiguration configuration, ClassLoader loader, ThreadFactory threads, Problems problems) {
        Map<String, LockStore> stores = new LinkedHashMap<>();
        Map<String, String> prefixes = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        Map<String, Secrets> secrets = new HashMap<>();
        int before = problems.all().size();
        configuration.stores().forEach((name, settings) -> {
            LockStore store = buildStore(name, settings, loader, threads, problems);
            if (store != null) {
                stores.put(name, store);
                secrets.put(name, Secrets.of(settings));
                prefixes.put(name, settings.get("prefix"));
                types.put(name, settings.get("type"));
            }
        });
        String defaultStore = defaultStore(configuration, problems);
        if (configuration.stores().isEmpty() && problems.all().size() == before) {
            stores.put(FALLBACK_STORE, new MemoryLockStore());
            secrets.put(FALLBACK_STORE, Secrets.rulesOnly());
            prefixes.put(FALLBACK_STORE, null);
            types.put(FALLBACK_STORE, "memory");
        }
        if (problems.all().size() > before) {
            stores.values().forEach(ConfiguredStores::closeQuietly);
            stores.clear();
        }
        return new ConfiguredStores(
                stores,
                prefixes,
                types,
                secrets,
                defaultStore,
                configuration.instanceName().orElse(null),
                threads);
    }

    /**
     * Every message relayed from a provider is masked ({@link Secrets}): a provider may quote a URL with its
     * password, or a password, in its exception.
     */
    private static LockStore buildStore(
            String name, Map<String, String> settings, ClassLoader loader, ThreadFactory threads, Problems problems) {
        String base = LockConfiguration.STORE_PREFIX + name;
        Secrets secrets = Secrets.of(settings);
        String type = settings.get("type");
        if (type == null || type.isEmpty()) {
            problems.add(base + ".type is missing or empty: set it to the store's type; installed types: "
                    + String.join(", ", installedTypes(loader)));
            return null;
        }
        try {
            LockNames.requireValidStoreName(name);
            LockNames.requireValidPrefix(name, settings.get("prefix"));
        } catch (IllegalArgumentException e) {
            problems.add(base + ": " + e.getMessage());
            return null;
        }
        try {
            return LockStoreProvider.create(name, type, settings, loader, threads);
        } catch (UnknownStoreException e) {
            problems.add(base + ".type: " + e.getMessage());
        } catch (LockConfigurationException e) {
            problems.add(e.key().map(key -> base + "." + key).orElse(base) + ": " + secrets.mask(e.getMessage()));
        } catch (RuntimeException e) {
            problems.add(base + ": the " + type + " store could not be created: " + secrets.mask(e.toString()));
        }
        return null;
    }

    private static String defaultStore(LockConfiguration configuration, Problems problems) {
        Set<String> names = configuration.stores().keySet();
        String key = LockConfiguration.DEFAULT_STORE;
        if (configuration.defaultStore().isPresent()) {
            String name = configuration.defaultStore().get();
            if (names.isEmpty() && !name.equals(FALLBACK_STORE)) {
                problems.add(
                        key + " is '" + name + "' but no store is configured: add " + LockConfiguration.STORE_PREFIX
                                + name + ".type, or remove " + key + " to use one memory store");
            } else if (!names.isEmpty() && !names.contains(name)) {
                problems.add(key + " is '" + name + "', which is not a configured store; configured stores: "
                        + String.join(", ", names));
            }
            return name;
        }
        if (names.size() > 1) {
            problems.add(key + " is missing: " + names.size() + " stores are configured (" + String.join(", ", names)
                    + "); name the one that unqualified LockRegistry injections and @Exclusive use");
            return null;
        }
        return names.isEmpty() ? FALLBACK_STORE : names.iterator().next();
    }

    private static Set<String> installedTypes(ClassLoader loader) {
        Set<String> types = new TreeSet<>();
        ServiceLoader.load(LockStoreProvider.class, loader).forEach(provider -> types.add(provider.type()));
        return types;
    }

    /**
     * The configured prefix; else, for a store that other applications can reach (every type but {@code memory}),
     * {@code <application name>:}; else none, with a warning that names the key to set.
     */
    private String prefix(String storeName, Optional<String> applicationName) {
        String configured = prefixes.get(storeName);
        String type = types.get(storeName);
        if (configured != null || "memory".equals(type)) {
            return configured == null ? "" : configured;
        }
        String key = LockConfiguration.STORE_PREFIX + storeName + ".prefix";
        if (applicationName.isPresent()) {
            String prefix = ApplicationName.prefix(applicationName.get());
            LOG.log(
                    Level.INFO,
                    "Store ''{0}'' ({1}): {2} is not set, so its lock names start with ''{3}'', this application''s"
                            + " name, apart from other applications on the same {1} store. Set {2} to choose (the"
                            + " same value in every application that must share these locks)",
                    storeName,
                    type,
                    key,
                    prefix);
            return prefix;
        }
        LOG.log(
                Level.WARNING,
                "Store ''{0}'' ({1}) has no prefix and the container gives no application name ({2}): every"
                        + " application on the same {1} store shares its lock names and can list and force-release"
                        + " its locks. Set {3}, such as {3}=myapp:",
                storeName,
                type,
                String.join(", ", ApplicationName.JNDI_NAMES),
                key);
        return "";
    }

    /** Closes every store: for a deployment that fails after they were built. */
    void close() {
        stores.values().forEach(ConfiguredStores::closeQuietly);
    }

    private static void closeQuietly(LockStore store) {
        try {
            store.close();
        } catch (RuntimeException e) {
            // the deployment fails anyway; a store that cannot close has nothing left to free
        }
    }

    /** @return the names that {@code @Exclusive(store = ...)} may use, also when building the stores failed */
    static Set<String> namesIn(LockConfiguration configuration) {
        return configuration.stores().isEmpty()
                ? Set.of(FALLBACK_STORE)
                : configuration.stores().keySet();
    }

    /** @return store name → store, in configuration order; empty if the deployment fails */
    Map<String, LockStore> stores() {
        return Collections.unmodifiableMap(stores);
    }

    String type(String storeName) {
        return types.get(storeName);
    }

    /** @return what masks the secrets of a store's settings in texts about it */
    Secrets secrets(String storeName) {
        return secrets.getOrDefault(storeName, Secrets.rulesOnly());
    }

    String defaultStore() {
        return defaultStore;
    }

    /**
     * @param listeners       told of every lock operation, in this order; none when nobody listens
     * @param applicationName the container's name for the application, if it has one
     * @return the registry over every store, viewing the default store; it owns the stores from now on
     */
    LockRegistry registry(List<LockListener> listeners, Optional<String> applicationName) {
        LockRegistry.Builder builder = LockRegistry.builder()
                .threadFactory(threads)
                .defaultStore(defaultStore)
                .instanceName(instanceName);
        stores.forEach((name, store) -> builder.store(name, store, prefix(name, applicationName)));
        listeners.forEach(builder::listener);
        return builder.build();
    }
}

package dev.exclusive.cdi.internal;

import dev.exclusive.spi.Secrets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;

/**
 * The {@code exclusive.*} keys of MicroProfile Config: the stores with their settings, the default store and the
 * instance name. Unknown keys are problems, so that a typo fails deployment instead of being ignored.
 *
 * @param stores       store name → its settings ({@code type}, {@code prefix} and the provider's), sorted by name
 * @param defaultStore {@code exclusive.default-store}, if set
 * @param instanceName {@code exclusive.instance-name}, if set
 */
record LockConfiguration(
        Map<String, Map<String, String>> stores, Optional<String> defaultStore, Optional<String> instanceName) {

    static final String PREFIX = "exclusive.";
    static final String STORE_PREFIX = PREFIX + "store.";
    static final String DEFAULT_STORE = PREFIX + "default-store";
    static final String INSTANCE_NAME = PREFIX + "instance-name";
    /** Keys the operator console (lock-admin-ui) reads and validates itself. */
    static final String CONSOLE_PREFIX = PREFIX + "console.";

    static LockConfiguration read(Config config, Problems problems) {
        Map<String, Map<String, String>> stores = new TreeMap<>();
        for (String key : sortedNames(config)) {
            if (!key.startsWith(PREFIX)
                    || key.equals(DEFAULT_STORE)
                    || key.equals(INSTANCE_NAME)
                    || key.startsWith(CONSOLE_PREFIX)
                    || sameAsDashed(config, key, DEFAULT_STORE)
                    || sameAsDashed(config, key, INSTANCE_NAME)) {
                continue;
            }
            if (!key.startsWith(STORE_PREFIX)) {
                problems.add(key + ": unknown key; the keys under exclusive. are " + DEFAULT_STORE + ", "
                        + INSTANCE_NAME + ", " + STORE_PREFIX + "<name>.<setting> and " + CONSOLE_PREFIX
                        + "* (the lock console)");
                continue;
            }
            String rest = key.substring(STORE_PREFIX.length());
            int dot = rest.indexOf('.');
            if (dot <= 0 || dot == rest.length() - 1) {
                problems.add(key + ": expected " + STORE_PREFIX + "<name>.<setting>, such as " + STORE_PREFIX
                        + "shared.type=redis");
                continue;
            }
            // a key listed with an empty value (an unset environment variable) still names its store, so that a
            // store whose type is empty is reported, not dropped for the in-JVM default
            Map<String, String> settings =
                    stores.computeIfAbsent(rest.substring(0, dot), name -> new LinkedHashMap<>());
            String setting = rest.substring(dot + 1);
            String dashed = setting.replace('.', '-');
            // an environment variable (EXCLUSIVE_STORE_S_CONNECT_TIMEOUT) may be listed with dots for its dashes
            String name =
                    sameAsDashed(config, key, STORE_PREFIX + rest.substring(0, dot + 1) + dashed) ? dashed : setting;
            config.getOptionalValue(key, String.class)
                    // a password is taken verbatim (lock-redis SETTINGS.md): its spaces may be part of it
                    .ifPresent(value -> settings.put(
                            name, name.toLowerCase(Locale.ROOT).endsWith("password") ? value : value.strip()));
        }
        stores.replaceAll((name, settings) -> Collections.unmodifiableMap(settings));
        return new LockConfiguration(
                Collections.unmodifiableMap(stores), nonBlank(config, DEFAULT_STORE), nonBlank(config, INSTANCE_NAME));
    }

    /** Shows every key, and the values of {@link Secrets#isSecretKey secret keys} masked. */
    @Override
    public String toString() {
        Map<String, Map<String, String>> shown = new TreeMap<>();
        stores.forEach((name, settings) -> {
            Map<String, String> values = new TreeMap<>();
            settings.forEach((key, value) -> values.put(key, Secrets.shown(key, value)));
            shown.put(name, values);
        });
        return "LockConfiguration[stores=" + shown + ", defaultStore=" + defaultStore + ", instanceName=" + instanceName
                + "]";
    }

    /**
     * @return whether {@code listed}, a name as the config sources list it, is {@code dashed} as an environment
     *         variable spells it ({@code EXCLUSIVE_DEFAULT_STORE} is listed as {@code exclusive.default.store})
     */
    private static boolean sameAsDashed(Config config, String listed, String dashed) {
        if (listed.equals(dashed) || !listed.equals(dashed.replace('-', '.'))) {
            return false;
        }
        Optional<String> value = config.getOptionalValue(listed, String.class);
        return value.isPresent() && value.equals(config.getOptionalValue(dashed, String.class));
    }

    private static Set<String> sortedNames(Config config) {
        Set<String> names = new TreeSet<>();
        config.getPropertyNames().forEach(names::add);
        return names;
    }

    private static Optional<String> nonBlank(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(value -> !value.isEmpty());
    }
}

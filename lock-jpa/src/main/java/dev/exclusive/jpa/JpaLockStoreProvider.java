package dev.exclusive.jpa;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds {@code jpa} stores. Settings:
 * <ul>
 * <li>{@code persistence-unit} (required): the persistence unit the store opens and closes;</li>
 * <li>{@code table}: the lock table (default {@value JpaLockStore#DEFAULT_TABLE});</li>
 * <li>{@code create-table}: {@code true} or {@code false} (default), create the table on first use;</li>
 * <li>{@code retention}: how long unused rows are kept (default {@code P7D});</li>
 * <li>{@code min-backoff}, {@code max-backoff}: the pauses of waiters polling for a release made in another JVM
 * (default {@code PT0.005S} and {@code PT0.1S});</li>
 * <li>{@code timeout}: the longest a statement may take (default {@code PT5S});</li>
 * <li>{@code data-source}: the JNDI name of a non-JTA data source that replaces the unit's own, so that one
 * persistence unit serves several databases (the demo switches from H2 to PostgreSQL this way).</li>
 * </ul>
 * Durations are ISO-8601 ({@code PT30S}, {@code P7D}) or whole seconds ({@code 30}).
 */
public final class JpaLockStoreProvider implements LockStoreProvider {

    private static final Set<String> KEYS = Set.of("persistence-unit", "data-source", "table", "create-table",
            "retention", "min-backoff", "max-backoff", "timeout");

    @Override
    public String type() {
        return "jpa";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        for (String key : new TreeSet<>(settings.keySet())) {
            if (!KEYS.contains(key)) {
                throw new LockConfigurationException("Store '" + storeName + "' of type jpa has no setting '" + key
                        + "'; known settings: " + String.join(", ", new TreeSet<>(KEYS)), storeName, key, null);
            }
        }
        String unit = settings.get("persistence-unit");
        if (unit == null || unit.isBlank()) {
            throw new LockConfigurationException("Store '" + storeName + "' of type jpa needs a persistence unit: set "
                    + "exclusive.store." + storeName + ".persistence-unit to a RESOURCE_LOCAL unit that lists "
                    + "dev.exclusive.jpa.LockRow", storeName, "persistence-unit", null);
        }
        JpaLockStore.Builder builder = JpaLockStore.builder(unit.strip()).storeName(storeName);
        String dataSource = settings.get("data-source");
        if (dataSource != null && !dataSource.isBlank()) {
            builder.properties(java.util.Map.of("jakarta.persistence.nonJtaDataSource", dataSource.strip()));
        }
        if (settings.containsKey("table")) {
            builder.table(settings.get("table").strip());
        }
        if (settings.containsKey("create-table")) {
            builder.createTable(bool(storeName, "create-table", settings.get("create-table")));
        }
        if (settings.containsKey("retention")) {
            builder.retention(duration(storeName, "retention", settings.get("retention")));
        }
        if (settings.containsKey("min-backoff") || settings.containsKey("max-backoff")) {
            Duration min = settings.containsKey("min-backoff")
                    ? duration(storeName, "min-backoff", settings.get("min-backoff")) : Duration.ofMillis(5);
            Duration max = settings.containsKey("max-backoff")
                    ? duration(storeName, "max-backoff", settings.get("max-backoff")) : Duration.ofMillis(100);
            builder.backoff(min, max.compareTo(min) < 0 && !settings.containsKey("max-backoff") ? min : max);
        }
        if (settings.containsKey("timeout")) {
            builder.timeout(duration(storeName, "timeout", settings.get("timeout")));
        }
        return builder.build();
    }

    private static boolean bool(String storeName, String key, String value) {
        String text = String.valueOf(value).strip();
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw new LockConfigurationException("Store '" + storeName + "': exclusive.store." + storeName + "." + key
                    + " must be true or false, got '" + value + "'", storeName, key, null);
        }
        return Boolean.parseBoolean(text);
    }

    private static Duration duration(String storeName, String key, String value) {
        String text = String.valueOf(value).strip();
        Duration duration;
        try {
            duration = text.matches("\\d+") ? Duration.ofSeconds(Long.parseLong(text)) : Duration.parse(text);
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new LockConfigurationException("Store '" + storeName + "': exclusive.store." + storeName + "." + key
                    + " must be an ISO-8601 duration (PT30S, P7D) or whole seconds, got '" + value + "'", storeName,
                    key, e);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new LockConfigurationException("Store '" + storeName + "': exclusive.store." + storeName + "." + key
                    + " must be positive, got '" + value + "'", storeName, key, null);
        }
        return duration;
    }
}

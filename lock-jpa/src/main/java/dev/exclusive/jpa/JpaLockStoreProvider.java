package dev.exclusive.jpa;

import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.StoreSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

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
 * persistence unit serves several databases (the demo switches from H2 to PostgreSQL this way);</li>
 * <li>{@code audit-max-records}, {@code audit-max-age}: the bounds of the audit table {@code <table>_audit}
 * (default 1000 records, 7 days; see {@link AuditLimits}).</li>
 * </ul>
 * Durations are ISO-8601 ({@code PT30S}, {@code P7D}), whole seconds ({@code 30}) or with a unit ({@code 500ms}).
 */
public final class JpaLockStoreProvider implements LockStoreProvider {

    private static final Duration DEFAULT_MIN_BACKOFF = Duration.ofMillis(5);
    private static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMillis(100);
    private static final Set<String> KEYS = keys(
            "persistence-unit",
            "data-source",
            "table",
            "create-table",
            "retention",
            "min-backoff",
            "max-backoff",
            "timeout");

    /** @return the store's own keys and the audit trail's */
    private static Set<String> keys(String... own) {
        Set<String> keys = new java.util.HashSet<>(Set.of(own));
        keys.addAll(AuditLimits.SETTINGS);
        return Set.copyOf(keys);
    }

    @Override
    public String type() {
        return "jpa";
    }

    /** Builds a store whose release listener (PostgreSQL) runs on a plain daemon thread. */
    @Override
    public LockStore create(String storeName, Map<String, String> values) {
        return create(storeName, values, null);
    }

    /**
     * Builds a store whose one background thread (the release listener on PostgreSQL) comes from {@code threads}.
     *
     * @param threads the factory, such as the container's {@code ManagedThreadFactory}; {@code null} for plain
     *                daemon threads
     */
    @Override
    public LockStore create(String storeName, Map<String, String> values, ThreadFactory threads) {
        StoreSettings settings = StoreSettings.of(type(), storeName, values, KEYS);
        String unit = settings.required(
                "persistence-unit",
                "a persistence unit, a RESOURCE_LOCAL unit that lists " + "dev.exclusive.jpa.LockRow,");
        JpaLockStore.Builder builder =
                JpaLockStore.builder(unit).storeName(storeName).threadFactory(threads);
        settings.text("data-source")
                .ifPresent(
                        dataSource -> builder.properties(Map.of("jakarta.persistence.nonJtaDataSource", dataSource)));
        settings.text("table").ifPresent(builder::table);
        builder.createTable(settings.bool("create-table", false));
        settings.duration("retention", Duration.ofSeconds(1), Duration.ofDays(36_500))
                .ifPresent(builder::retention);
        Optional<Duration> min = settings.duration("min-backoff", Duration.ofMillis(1), Duration.ofHours(1));
        Optional<Duration> max = settings.duration("max-backoff", Duration.ofMillis(1), Duration.ofHours(1));
        if (min.isPresent() || max.isPresent()) {
            Duration first = min.orElse(DEFAULT_MIN_BACKOFF);
            builder.backoff(first, max.orElse(DEFAULT_MAX_BACKOFF.compareTo(first) < 0 ? first : DEFAULT_MAX_BACKOFF));
        }
        settings.duration("timeout", Duration.ofMillis(1), Duration.ofHours(1)).ifPresent(builder::timeout);
        builder.auditLimits(AuditLimits.of(settings));
        return builder.build();
    }
}

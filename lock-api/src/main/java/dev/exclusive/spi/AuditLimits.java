package dev.exclusive.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * How much of its audit trail a store keeps: at most {@code maxRecords} records (the oldest go first), none older
 * than {@code maxAge} by the store's clock. Stores apply the count when they append and the age when they append
 * or read, so a read never returns a record past either bound.
 *
 * <p>Settings of every built-in store: {@code audit-max-records} (default 1000) and {@code audit-max-age} (default
 * {@code P7D}; any form {@link StoreSettings#duration} reads).
 *
 * @param maxRecords the most records kept; positive
 * @param maxAge     the oldest a kept record may be; positive
 */
public record AuditLimits(int maxRecords, Duration maxAge) {

    /** The last 1,000 records, and none older than 7 days. */
    public static final AuditLimits DEFAULT = new AuditLimits(1000, Duration.ofDays(7));

    /** The settings {@link #of(StoreSettings)} reads, for a provider's list of known keys. */
    public static final Set<String> SETTINGS = Set.of("audit-max-records", "audit-max-age");

    private static final int MAX_RECORDS = 1_000_000;

    /**
     * @param maxRecords the most records kept; positive
     * @param maxAge     the oldest a kept record may be; positive
     * @throws IllegalArgumentException if either is not positive
     */
    public AuditLimits {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxRecords < 1 || maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException(
                    "Audit limits must be positive, got " + maxRecords + " records and " + maxAge);
        }
    }

    /**
     * Reads {@code audit-max-records} and {@code audit-max-age}, each defaulting to {@link #DEFAULT}'s.
     *
     * @param settings a store's settings
     * @return the limits they give
     * @throws dev.exclusive.LockConfigurationException if one is malformed or out of range (1 to 1,000,000
     *                                                  records; 1 minute to 100 years)
     */
    public static AuditLimits of(StoreSettings settings) {
        int records = settings.text("audit-max-records")
                .map(text -> {
                    try {
                        int parsed = Integer.parseInt(text);
                        if (parsed >= 1 && parsed <= MAX_RECORDS) {
                            return parsed;
                        }
                    } catch (NumberFormatException e) {
                        // reported below with the value and the range
                    }
                    throw settings.problem(
                            "audit-max-records",
                            "needs " + settings.key("audit-max-records") + " to be a whole number from 1 to "
                                    + MAX_RECORDS + ", got '" + text + "'",
                            null);
                })
                .orElse(DEFAULT.maxRecords());
        Duration age = settings.duration("audit-max-age", Duration.ofMinutes(1), Duration.ofDays(36_500))
                .orElse(DEFAULT.maxAge());
        return new AuditLimits(records, age);
    }
}

package dev.exclusive.spi;

import dev.exclusive.LockConfigurationException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings a {@link LockStoreProvider} receives, read with the checks every provider needs and messages that
 * name the full key ({@code exclusive.store.<name>.<key>}), the value and the fix. Blank values count as unset.
 */
public final class StoreSettings {

    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");

    private final String type;
    private final String storeName;
    private final Map<String, String> settings;

    private StoreSettings(String type, String storeName, Map<String, String> settings) {
        this.type = type;
        this.storeName = storeName;
        this.settings = settings;
    }

    /**
     * @param type      the store type, for messages
     * @param storeName the configured store's name, for messages
     * @param settings  the settings the provider received
     * @param known     every key the provider understands
     * @return the settings, for reading
     * @throws LockConfigurationException naming the first unknown key (alphabetically) and the known ones
     */
    public static StoreSettings of(String type, String storeName, Map<String, String> settings, Set<String> known) {
        for (String key : new TreeSet<>(settings.keySet())) {
            if (!known.contains(key)) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "' of type " + type + " has no setting '"
                                + key + "' (exclusive.store." + storeName + "." + key + "); known settings: "
                                + String.join(", ", new TreeSet<>(known)),
                        storeName,
                        key,
                        null);
            }
        }
        return new StoreSettings(type, storeName, settings);
    }

    /**
     * @param key the setting, relative to the store
     * @return the full configuration key of a setting: {@code exclusive.store.<name>.<key>}
     */
    public String key(String key) {
        return "exclusive.store." + storeName + "." + key;
    }

    /**
     * @param key the setting, relative to the store
     * @return the value of {@code key}, stripped; empty when unset or blank
     */
    public Optional<String> text(String key) {
        String value = settings.get(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    /**
     * @param key  the setting
     * @param what what the setting is for, ending the sentence "... needs ..."
     * @return the value
     * @throws LockConfigurationException if it is unset
     */
    public String required(String key, String what) {
        return text(key).orElseThrow(() -> problem(key, "needs " + what + ": set " + key(key), null));
    }

    /**
     * @param key          the setting, relative to the store
     * @param defaultValue the value when unset
     * @return {@code true} or {@code false} as written (any case); {@code defaultValue} when unset
     * @throws LockConfigurationException for any other value
     */
    public boolean bool(String key, boolean defaultValue) {
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        String text = value.get();
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw problem(key, "needs " + key(key) + " to be true or false, got '" + text + "'", null);
        }
        return Boolean.parseBoolean(text);
    }

    /**
     * A duration written as ISO-8601 ({@code PT2S}, {@code P7D}), whole seconds ({@code 30}) or with a unit
     * ({@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}).
     *
     * @param key the setting
     * @param min the shortest allowed
     * @param max the longest allowed
     * @return the duration; empty when unset
     * @throws LockConfigurationException if it is malformed or outside {@code [min, max]}
     */
    public Optional<Duration> duration(String key, Duration min, Duration max) {
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        Duration duration = parseDuration(value.get());
        if (duration == null || duration.compareTo(min) < 0 || duration.compareTo(max) > 0) {
            throw problem(
                    key,
                    "needs " + key(key) + " between " + min + " and " + max + ", like 500ms, 2s, 30 (seconds)"
                            + " or PT2S, got '" + value.get() + "'",
                    null);
        }
        return Optional.of(duration);
    }

    /**
     * @param key     the setting concerned
     * @param message the rest of a sentence that starts "Store 'name' of type t "
     * @param cause   the underlying failure, or {@code null}
     * @return the exception to throw
     */
    public LockConfigurationException problem(String key, String message, Throwable cause) {
        return new LockConfigurationException(
                "Store '" + storeName + "' of type " + type + " " + message, storeName, key, cause);
    }

    private static Duration parseDuration(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.matches("\\d{1,12}")) {
            return Duration.ofSeconds(Long.parseLong(lower));
        }
        Matcher unit = SHORT_DURATION.matcher(lower);
        if (unit.matches()) {
            long amount = Long.parseLong(unit.group(1));
            return switch (unit.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}

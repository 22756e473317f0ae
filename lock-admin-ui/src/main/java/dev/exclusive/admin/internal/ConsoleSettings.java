package dev.exclusive.admin.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * The console's settings, read once from MicroProfile Config.
 *
 * @param route     the view's path, without slashes at either end ({@code exclusive.console.route}, default
 *                  {@code exclusive})
 * @param role      the role a user needs to reach the view ({@code exclusive.console.role}, default
 *                  {@code exclusive-admin})
 * @param refresh   how often the view re-reads the stores for changes other servers made
 *                  ({@code exclusive.console.refresh-millis}, default 1000)
 * @param scanLimit the most live locks read from one store for one query ({@code exclusive.console.scan-limit},
 *                  default 10000)
 */
public record ConsoleSettings(String route, String role, Duration refresh, int scanLimit) {

    public static final String ROUTE = "exclusive.console.route";
    public static final String ROLE = "exclusive.console.role";
    public static final String REFRESH = "exclusive.console.refresh-millis";
    public static final String SCAN_LIMIT = "exclusive.console.scan-limit";

    public static final ConsoleSettings DEFAULTS =
            new ConsoleSettings("exclusive", "exclusive-admin", Duration.ofSeconds(1), 10_000);

    /**
     * @param config the application's configuration
     * @return the settings
     * @throws IllegalArgumentException naming every bad key, its value and the fix
     */
    public static ConsoleSettings read(Config config) {
        List<String> problems = new ArrayList<>();
        String route = config.getOptionalValue(ROUTE, String.class)
                .map(ConsoleSettings::trimSlashes)
                .orElse(DEFAULTS.route);
        if (route.chars()
                .anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c) || c == '?' || c == '#')) {
            problems.add(ROUTE + " must be a path without spaces, '?' or '#', got '" + route + "'");
        }
        String role =
                config.getOptionalValue(ROLE, String.class).map(String::strip).orElse(DEFAULTS.role);
        if (role.isEmpty()) {
            problems.add(ROLE + " must name a role, got an empty value; remove it to use '" + DEFAULTS.role + "'");
        }
        long refreshMillis = number(config, REFRESH, Long::parseLong, DEFAULTS.refresh.toMillis(), problems);
        if (refreshMillis < 100 || refreshMillis > 60_000) {
            problems.add(REFRESH + " must be between 100 and 60000 (milliseconds), got " + refreshMillis);
        }
        int scanLimit = number(config, SCAN_LIMIT, Integer::parseInt, DEFAULTS.scanLimit, problems);
        if (scanLimit < 1) {
            problems.add(SCAN_LIMIT + " must be positive, got " + scanLimit);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("Bad lock console configuration: " + String.join("; ", problems));
        }
        return new ConsoleSettings(route, role, Duration.ofMillis(refreshMillis), scanLimit);
    }

    private static <T extends Number> T number(
            Config config, String key, Function<String, T> parse, T fallback, List<String> problems) {
        Optional<String> text = config.getOptionalValue(key, String.class);
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            return parse.apply(text.get().strip());
        } catch (NumberFormatException e) {
            problems.add(key + " must be a whole number, got '" + text.get() + "'");
            return fallback;
        }
    }

    private static String trimSlashes(String path) {
        String trimmed = path.strip();
        int start = 0;
        int end = trimmed.length();
        while (start < end && trimmed.charAt(start) == '/') {
            start++;
        }
        while (end > start && trimmed.charAt(end - 1) == '/') {
            end--;
        }
        return trimmed.substring(start, end);
    }
}

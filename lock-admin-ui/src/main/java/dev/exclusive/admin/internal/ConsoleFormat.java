package dev.exclusive.admin.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** How the console writes times and durations. */
public final class ConsoleFormat {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private ConsoleFormat() {}

    /**
     * A remaining lease as operators read it: {@code 42 s}, {@code 4 min 05 s}, {@code 2 h 03 min}; whole seconds
     * rounded down, {@code < 1 s} for the last second and {@code expired} once it has run out.
     *
     * @param remaining the remaining lease
     * @return the text
     */
    public static String remaining(Duration remaining) {
        if (remaining.isNegative() || remaining.isZero()) {
            return "expired";
        }
        long seconds = remaining.getSeconds();
        if (seconds == 0) {
            return "< 1 s";
        }
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return String.format("%d min %02d s", seconds / 60, seconds % 60);
        }
        if (seconds < 86_400) {
            return String.format("%d h %02d min", seconds / 3600, seconds % 3600 / 60);
        }
        return String.format("%d d %02d h", seconds / 86_400, seconds % 86_400 / 3600);
    }

    /**
     * @param instant a point in time
     * @param zone    the viewer's time zone
     * @return {@code yyyy-MM-dd HH:mm:ss} in that zone
     */
    public static String instant(Instant instant, ZoneId zone) {
        return TIME.format(instant.atZone(zone));
    }
}

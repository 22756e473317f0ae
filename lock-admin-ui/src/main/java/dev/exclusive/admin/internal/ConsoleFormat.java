package dev.exclusive.admin.internal;

import dev.exclusive.spi.Secrets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

/** How the console writes times and durations. */
public final class ConsoleFormat {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private ConsoleFormat() {}

    /**
     * A store's failure as operators read it: its message, and its cause's where that adds something, with the
     * credentials a URL or a password parameter in them would show masked ({@link Secrets#rulesOnly()}): the
     * built-in stores mask their own, a third-party store or its driver may not.
     *
     * @param failure what the store threw
     * @return its message, masked
     */
    public static String failure(RuntimeException failure) {
        String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        Throwable cause = failure.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += " (" + cause.getMessage() + ")";
        }
        return Secrets.rulesOnly().mask(message);
    }

    /**
     * Text from applications (lock names, holders) as an operator must read it: each bidirectional control
     * character (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) written as {@code [U+202E]} instead of
     * applied. Applied, it reorders what follows: {@code imports:\u202Esresu} would read {@code imports:users},
     * next to the real lock, and turn the force-release dialog's text around it. Everything else is shown as is.
     *
     * @param text the text
     * @return the text with its bidirectional controls visible
     */
    public static String shown(String text) {
        if (text.codePoints().noneMatch(ConsoleFormat::isBidiControl)) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length() + 16);
        text.codePoints().forEach(point -> {
            if (isBidiControl(point)) {
                shown.append(String.format("[U+%04X]", point));
            } else {
                shown.appendCodePoint(point);
            }
        });
        return shown.toString();
    }

    private static boolean isBidiControl(int point) {
        return point == 0x061C
                || point == 0x200E
                || point == 0x200F
                || (point >= 0x202A && point <= 0x202E)
                || (point >= 0x2066 && point <= 0x2069);
    }

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

    /**
     * How long something has lasted so far: {@code < 1 s}, {@code 42 s}, {@code 4 min 05 s}, as
     * {@link #remaining(Duration)} writes a lease, but never {@code expired}.
     *
     * @param elapsed a duration, not negative
     * @return the text
     */
    public static String elapsed(Duration elapsed) {
        return elapsed.getSeconds() < 1 ? "< 1 s" : remaining(elapsed);
    }

    /**
     * A wait as the statistics measure it: {@code 0.2 ms} below a millisecond, {@code 15 ms} below a second, then
     * {@code 1.5 s}, {@code 60 s}.
     *
     * @param wait a wait
     * @return the text
     */
    public static String wait(Duration wait) {
        long nanos = wait.toNanos();
        if (nanos < 1_000_000L) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
        if (nanos < 1_000_000_000L) {
            return nanos / 1_000_000L + " ms";
        }
        return SvgChart.number(nanos / 1e9) + " s";
    }

    /**
     * A p99 from {@code dev.exclusive.LockStatistics}, which is the upper bound of the histogram bucket the 99th
     * percentile falls in: {@code ≤ 15 ms}; a dash when nothing waited.
     *
     * @param p99 the p99, empty when there was no wait
     * @return the text
     */
    public static String p99(Optional<Duration> p99) {
        return p99.map(wait -> "≤ " + wait(wait)).orElse("—");
    }

    /**
     * A rate: {@code 0.25/s}, {@code 12/s}, {@code 1.5k/s}.
     *
     * @param perSecond events per second
     * @return the text
     */
    public static String rate(double perSecond) {
        return SvgChart.number(perSecond) + "/s";
    }
}

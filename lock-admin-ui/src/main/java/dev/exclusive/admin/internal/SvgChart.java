package dev.exclusive.admin.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A small line chart over time, rendered on the server as one {@code <svg>} element: the console's charts need no
 * npm build and no commercial component, only Vaadin's pre-built bundle.
 *
 * <p>The chart is drawn in a fixed {@value #WIDTH}×{@value #HEIGHT} coordinate system (its {@code viewBox}) and
 * scales to the width of its container. It has a title and the unit at the top left, the peak at the top right, a
 * y axis from 0 to a round number at or above the peak with up to 5 gridlines, and clock times on the x axis in the viewer's
 * zone. The series is a line with a light area under it; a single point is drawn as a dot; no point at all shows
 * "No data yet" over empty axes. Every text is escaped for XML: a title with {@code <}, {@code &} or quotes shows as
 * typed and cannot add markup. Numbers are written with a dot as decimal separator whatever the server's locale.
 *
 * <p>Immutable and thread-safe.
 */
public final class SvgChart {

    /** The width of the chart's coordinate system, in SVG user units (px at 1:1). */
    public static final int WIDTH = 300;
    /** The height of the chart's coordinate system. */
    public static final int HEIGHT = 160;

    static final double LEFT = 40;
    static final double RIGHT = WIDTH - 24;
    static final double TOP = 30;
    static final double BOTTOM = HEIGHT - 22;

    private static final List<Duration> TICK_STEPS = List.of(
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            Duration.ofMinutes(2),
            Duration.ofMinutes(5),
            Duration.ofMinutes(10),
            Duration.ofMinutes(15),
            Duration.ofMinutes(30),
            Duration.ofHours(1),
            Duration.ofHours(2),
            Duration.ofHours(6),
            Duration.ofHours(12),
            Duration.ofDays(1));
    private static final DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

    /**
     * One value of the series.
     *
     * @param at    when; points outside the chart's window are left out
     * @param value the value, finite and not negative
     */
    public record Point(Instant at, double value) {

        /**
         * @throws IllegalArgumentException if {@code value} is negative, infinite or NaN
         */
        public Point {
            Objects.requireNonNull(at, "at");
            if (!Double.isFinite(value) || value < 0) {
                throw new IllegalArgumentException("A chart value must be finite and not negative, got " + value);
            }
        }
    }

    private final String title;
    private final String unit;
    private final String color;
    private final Instant from;
    private final Instant to;
    private final List<Point> points;

    /**
     * @param title  what is counted, e.g. {@code Acquisitions}
     * @param unit   the values' unit, e.g. {@code /s}; shown after the title and the peak
     * @param color  the line's colour, any CSS colour (e.g. {@code var(--lumo-primary-color)}); escaped like text
     * @param from   the window's start, the x axis's left end
     * @param to     the window's end, the x axis's right end; after {@code from}
     * @param points the series, in any order
     * @throws IllegalArgumentException if {@code to} is not after {@code from}
     */
    public SvgChart(String title, String unit, String color, Instant from, Instant to, List<Point> points) {
        this.title = Objects.requireNonNull(title, "title");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.color = Objects.requireNonNull(color, "color");
        this.from = Objects.requireNonNull(from, "from");
        this.to = Objects.requireNonNull(to, "to");
        if (!to.isAfter(from)) {
            throw new IllegalArgumentException("A chart's window must end after it starts, got " + from + " to " + to);
        }
        this.points = Objects.requireNonNull(points, "points").stream()
                .filter(p -> !p.at().isBefore(from) && !p.at().isAfter(to))
                .sorted((a, b) -> a.at().compareTo(b.at()))
                .toList();
    }

    /**
     * @param zone the viewer's time zone, for the x axis's clock times
     * @return the chart as one {@code <svg>} element
     */
    public String render(ZoneId zone) {
        double peak = points.stream().mapToDouble(Point::value).max().orElse(0);
        Scale scale = Scale.above(peak);
        StringBuilder svg = new StringBuilder(4096 + points.size() * 24);
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" class=\"exclusive-chart\" role=\"img\" aria-label=\"")
                .append(escape(title + " " + unit + ", peak " + number(peak) + " " + unit))
                .append(
                        "\" style=\"width:100%;height:auto;display:block;font-family:var(--lumo-font-family,sans-serif)\">");
        svg.append("<title>").append(escape(title + " (" + unit + ")")).append("</title>");
        svg.append("<text class=\"exclusive-chart-title\" x=\"2\" y=\"16\" style=\"font-size:13px;font-weight:600;")
                .append("fill:var(--lumo-body-text-color,#222)\">")
                .append(escape(title))
                .append(" <tspan class=\"exclusive-chart-unit\" style=\"")
                .append(muted(12))
                .append(";font-weight:400\">")
                .append(escape(unit))
                .append("</tspan></text>");
        text(
                svg,
                RIGHT,
                16,
                "end",
                "exclusive-chart-peak",
                muted(12),
                points.isEmpty() ? "" : "peak " + number(peak) + " " + unit);

        for (int i = 0; i <= scale.ticks(); i++) {
            double value = scale.step() * i;
            double y = y(value, scale);
            svg.append("<line class=\"exclusive-chart-grid\" x1=\"")
                    .append(coordinate(LEFT))
                    .append("\" x2=\"")
                    .append(coordinate(RIGHT))
                    .append("\" y1=\"")
                    .append(coordinate(y))
                    .append("\" y2=\"")
                    .append(coordinate(y))
                    .append("\" style=\"stroke:")
                    .append(i == 0 ? "var(--lumo-contrast-50pct,#888)" : "var(--lumo-contrast-10pct,#ddd)")
                    .append(";stroke-width:1\"/>");
            text(svg, LEFT - 5, y + 4, "end", "exclusive-chart-y", muted(11), number(value));
        }
        for (Instant tick : xTicks(zone)) {
            double x = x(tick);
            svg.append("<line x1=\"")
                    .append(coordinate(x))
                    .append("\" x2=\"")
                    .append(coordinate(x))
                    .append("\" y1=\"")
                    .append(coordinate(BOTTOM))
                    .append("\" y2=\"")
                    .append(coordinate(BOTTOM + 4))
                    .append("\" style=\"stroke:var(--lumo-contrast-50pct,#888);stroke-width:1\"/>");
            text(svg, x, BOTTOM + 16, "middle", "exclusive-chart-x", muted(11), label(tick, zone));
        }

        if (points.isEmpty()) {
            text(
                    svg,
                    (LEFT + RIGHT) / 2,
                    (TOP + BOTTOM) / 2 + 4,
                    "middle",
                    "exclusive-chart-empty",
                    muted(12),
                    "No data yet");
        } else if (points.size() == 1) {
            Point only = points.get(0);
            svg.append("<circle class=\"exclusive-chart-dot\" cx=\"")
                    .append(coordinate(x(only.at())))
                    .append("\" cy=\"")
                    .append(coordinate(y(only.value(), scale)))
                    .append("\" r=\"3\" style=\"fill:")
                    .append(escape(color))
                    .append("\"/>");
        } else {
            StringBuilder line = new StringBuilder(points.size() * 14);
            for (Point point : points) {
                if (line.length() > 0) {
                    line.append(' ');
                }
                line.append(coordinate(x(point.at()))).append(',').append(coordinate(y(point.value(), scale)));
            }
            String first = coordinate(x(points.get(0).at()));
            String last = coordinate(x(points.get(points.size() - 1).at()));
            String base = coordinate(BOTTOM);
            svg.append("<polygon class=\"exclusive-chart-area\" points=\"")
                    .append(first)
                    .append(',')
                    .append(base)
                    .append(' ')
                    .append(line)
                    .append(' ')
                    .append(last)
                    .append(',')
                    .append(base)
                    .append("\" style=\"fill:")
                    .append(escape(color))
                    .append(";fill-opacity:0.15;stroke:none\"/>");
            svg.append("<polyline class=\"exclusive-chart-line\" points=\"")
                    .append(line)
                    .append("\" style=\"fill:none;stroke:")
                    .append(escape(color))
                    .append(";stroke-width:1.5;stroke-linejoin:round\"/>");
        }
        return svg.append("</svg>").toString();
    }

    /** Clock times at a round step that gives 3 to 6 labels across the window, in the viewer's zone. */
    List<Instant> xTicks(ZoneId zone) {
        Duration window = Duration.between(from, to);
        Duration step = TICK_STEPS.stream()
                .filter(candidate -> window.dividedBy(candidate) <= 5)
                .findFirst()
                .orElse(TICK_STEPS.get(TICK_STEPS.size() - 1));
        ZonedDateTime day = from.atZone(zone).truncatedTo(ChronoUnit.DAYS);
        long stepSeconds = step.getSeconds();
        long sinceMidnight = Duration.between(day, from.atZone(zone)).getSeconds();
        ZonedDateTime tick = day.plusSeconds((sinceMidnight + stepSeconds - 1) / stepSeconds * stepSeconds);
        List<Instant> ticks = new ArrayList<>();
        for (; !tick.toInstant().isAfter(to); tick = tick.plus(step)) {
            ticks.add(tick.toInstant());
        }
        return ticks;
    }

    private static String label(Instant tick, ZoneId zone) {
        ZonedDateTime time = tick.atZone(zone);
        return (time.getSecond() == 0 ? MINUTES : SECONDS).format(time);
    }

    double x(Instant at) {
        double span = Duration.between(from, to).toMillis();
        return LEFT + (RIGHT - LEFT) * Duration.between(from, at).toMillis() / span;
    }

    static double y(double value, Scale scale) {
        return BOTTOM - (BOTTOM - TOP) * value / scale.top();
    }

    private static String muted(int size) {
        return "font-size:" + size + "px;fill:var(--lumo-secondary-text-color,#666)";
    }

    private static void text(
            StringBuilder svg, double x, double y, String anchor, String cssClass, String style, String content) {
        svg.append("<text class=\"")
                .append(cssClass)
                .append("\" x=\"")
                .append(coordinate(x))
                .append("\" y=\"")
                .append(coordinate(y))
                .append("\" text-anchor=\"")
                .append(anchor)
                .append("\" style=\"")
                .append(style)
                .append("\">")
                .append(escape(content))
                .append("</text>");
    }

    /** A coordinate with one decimal, dot-separated in every locale. */
    static String coordinate(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /**
     * A value as a label: at most two decimals and no trailing zeros ({@code 0.25}, {@code 2.5}, {@code 40}),
     * thousands as {@code k} ({@code 1.5k}), millions as {@code M}.
     *
     * @param value a value, not negative
     * @return the label
     */
    public static String number(double value) {
        if (value >= 1_000_000) {
            return trim(String.format(Locale.ROOT, "%.2f", value / 1_000_000)) + "M";
        }
        if (value >= 1_000) {
            return trim(String.format(Locale.ROOT, "%.2f", value / 1_000)) + "k";
        }
        return trim(String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value));
    }

    private static String trim(String decimal) {
        if (!decimal.contains(".")) {
            return decimal;
        }
        String trimmed = decimal.replaceAll("0+$", "");
        return trimmed.endsWith(".") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
    }

    /**
     * @param text any text
     * @return the text with {@code & < > " '} as XML entities, safe in an element and in a quoted attribute
     */
    public static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /**
     * The y axis: from 0 to {@code step * ticks}, in steps of a round size (1, 2, 2.5 or 5 times a power of ten), the
     * smallest that reaches the peak in at most {@value #MAX_TICKS} steps; an all-zero or empty series gets 0 to 1.
     */
    record Scale(double step, int ticks) {

        static final int MAX_TICKS = 5;

        static Scale above(double peak) {
            double wanted = peak <= 0 ? 1 : peak;
            double raw = wanted / MAX_TICKS;
            double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
            for (double factor : new double[] {1, 2, 2.5, 5, 10}) {
                double step = factor * magnitude;
                // a little tolerance: 0.1 * 3 is 0.30000000000000004
                if (step * MAX_TICKS >= wanted * (1 - 1e-9)) {
                    return new Scale(step, (int) Math.ceil(wanted / step - 1e-9));
                }
            }
            throw new AssertionError("unreachable: 10 times the magnitude always reaches the peak");
        }

        double top() {
            return step * ticks;
        }
    }
}

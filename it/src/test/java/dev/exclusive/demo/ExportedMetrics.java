package dev.exclusive.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lock metrics the demo exported to the server's messages.log (OpenTelemetry's logging exporter: one line
 * {@code metric: ImmutableMetricData{...}} per metric and export, cumulative), read from a byte offset on, so that a
 * test sees only what was exported after it began.
 */
final class ExportedMetrics {

    private static final Pattern NAME = Pattern.compile("metric: ImmutableMetricData\\{.*?, name=([^,]+),");
    /** A histogram point: its attributes, then its sum and count. Attribute values may hold braces. */
    private static final Pattern HISTOGRAM_POINT = Pattern.compile(
            "(?:get)?[aA]ttributes=\\{((?:[^}\"]|\"[^\"]*\")*)\\}, (?:get)?[sS]um=[^,]*, (?:get)?[cC]ount=(\\d+)");
    /** A long sum point: its attributes, then its value. */
    private static final Pattern SUM_POINT =
            Pattern.compile("(?:get)?[aA]ttributes=\\{((?:[^}\"]|\"[^\"]*\")*)\\}, (?:get)?[vV]alue=(-?\\d+)");

    private final Path log;
    private final long from;

    private ExportedMetrics(Path log, long from) {
        this.log = log;
        this.from = from;
    }

    /** @return a reader of what the server exports from now on */
    static ExportedMetrics fromNow() {
        Path log = Deployments.serverDir().resolve("logs").resolve("messages.log");
        try {
            return new ExportedMetrics(log, Files.exists(log) ? Files.size(log) : 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The latest export of a histogram: each point's count by its attributes as logged, such as
     * {@code exclusive.lock="purchase:product:{productId}", exclusive.store="shared", outcome="acquired"}.
     */
    Map<String, Long> histogramCounts(String metric) {
        return points(metric, HISTOGRAM_POINT);
    }

    /** The latest export of a sum (counter or up-down counter): each point's value by its attributes. */
    Map<String, Long> sums(String metric) {
        return points(metric, SUM_POINT);
    }

    private Map<String, Long> points(String metric, Pattern point) {
        String latest = null;
        for (String line : linesSinceStart()) {
            Matcher name = NAME.matcher(line);
            if (name.find() && name.group(1).equals(metric)) {
                latest = line;
            }
        }
        Map<String, Long> points = new HashMap<>();
        if (latest != null) {
            Matcher found = point.matcher(latest);
            while (found.find()) {
                points.put(found.group(1), Long.parseLong(found.group(2)));
            }
        }
        return points;
    }

    private List<String> linesSinceStart() {
        try {
            byte[] all = Files.readAllBytes(log);
            int start = (int) Math.min(from, all.length);
            return new String(all, start, all.length - start, StandardCharsets.UTF_8)
                    .lines()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + log, e);
        }
    }
}

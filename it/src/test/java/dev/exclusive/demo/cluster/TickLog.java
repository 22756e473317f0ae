package dev.exclusive.demo.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Reads what {@link TickTimer} deployments wrote: one {@code <server>.txt} per server in a folder. */
final class TickLog {

    private TickLog() {}

    /** Makes {@code dir} an empty folder for a run's records, deleting what an earlier run left there. */
    static void empty(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        Files.createDirectories(dir);
    }

    /**
     * @return tick → what each server did ({@code ran}/{@code skipped}; {@code skipped+skipped} when its timer fired
     *     twice in the tick, catching up after a busy moment), in the order of {@code servers}, for ticks every one of
     *     {@code servers} recorded after its first: a deployment's first {@code @Exclusive} call builds its lock
     *     registry and opens its store, which on a cold server can take longer than {@code minHold} plus the skew
     *     (seen once on Payara Server in CI: both servers with minHold ran the first tick), so that tick says nothing
     *     about the option
     */
    static Map<Long, List<String>> firedByAll(Path dir, String... servers) throws IOException {
        List<Map<Long, String>> each = new ArrayList<>();
        for (String server : servers) {
            each.add(outcomes(dir, server));
        }
        long warmUp = each.stream()
                .mapToLong(outcomes -> outcomes.keySet().stream()
                        .mapToLong(Long::longValue)
                        .min()
                        .orElse(Long.MAX_VALUE))
                .max()
                .orElse(Long.MAX_VALUE);
        Map<Long, List<String>> all = new TreeMap<>();
        each.get(0).keySet().forEach(tick -> {
            if (tick > warmUp && each.stream().allMatch(outcomes -> outcomes.containsKey(tick))) {
                all.put(tick, each.stream().map(outcomes -> outcomes.get(tick)).toList());
            }
        });
        return all;
    }

    /** @return tick → what the server did; a tick it recorded twice (it never should) shows both */
    private static Map<Long, String> outcomes(Path dir, String server) throws IOException {
        Path file = dir.resolve(server + ".txt");
        if (!Files.exists(file)) {
            return Map.of();
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .filter(line -> line.endsWith("ran") || line.endsWith("skipped"))
                .map(line -> line.split(" "))
                .collect(Collectors.toMap(parts -> Long.parseLong(parts[0]), parts -> parts[1], (x, y) -> x + "+" + y));
    }
}

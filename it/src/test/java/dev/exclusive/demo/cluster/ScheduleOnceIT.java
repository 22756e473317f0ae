package dev.exclusive.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two "servers" (two deployments, each with its own lock registry, on one lock folder) fire the same
 * {@code @Schedule @Exclusive(onBusy = SKIP)} timer every 3 s: each tick that both fired ran exactly once, and
 * the other server skipped it.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ScheduleOnceIT {

    private static final Path DIR = Path.of("target", "schedule-it").toAbsolutePath();
    private static final Path TICKS_FILE = DIR.resolve("ticks.txt");
    private static final int TICKS = 3;

    @Deployment(name = "node-a", testable = false, order = 1)
    static WebArchive nodeA() throws IOException {
        Files.createDirectories(DIR);
        Files.deleteIfExists(TICKS_FILE);
        return node("node-a.war");
    }

    @Deployment(name = "node-b", testable = false, order = 2)
    static WebArchive nodeB() {
        return node("node-b.war");
    }

    private static WebArchive node(String name) {
        return Deployments.slim(name, Deployments.LOCK_CONFIG + "it.tick.dir=" + DIR + "\n")
                .addClasses(TickTimer.class);
    }

    @Test
    void aTickFiredOnBothServersRunsOnceAndIsSkippedOnTheOther() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<Long, List<String>> ticks = ticksFiredByBoth();
        while (ticks.size() < TICKS && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            ticks = ticksFiredByBoth();
        }
        assertThat(ticks).as("ticks that both servers fired within 60 s").hasSizeGreaterThanOrEqualTo(TICKS);

        ticks.forEach((tick, outcomes) ->
                assertThat(outcomes).as("tick %d", tick).containsExactlyInAnyOrder("ran", "skipped"));
    }

    /** @return tick → what each server did ({@code ran}/{@code skipped}), for ticks both servers recorded */
    private static Map<Long, List<String>> ticksFiredByBoth() throws IOException {
        List<String[]> lines = Files.exists(TICKS_FILE)
                ? Files.readAllLines(TICKS_FILE, StandardCharsets.UTF_8).stream()
                        .filter(line -> !line.isBlank())
                        .map(line -> line.split(" "))
                        .toList()
                : List.of();
        Map<Long, Set<String>> servers = lines.stream()
                .collect(Collectors.groupingBy(
                        parts -> Long.parseLong(parts[0]), Collectors.mapping(parts -> parts[1], Collectors.toSet())));
        return lines.stream()
                .filter(parts -> servers.get(Long.parseLong(parts[0])).size() == 2)
                .collect(Collectors.groupingBy(
                        parts -> Long.parseLong(parts[0]), Collectors.mapping(parts -> parts[2], Collectors.toList())));
    }
}

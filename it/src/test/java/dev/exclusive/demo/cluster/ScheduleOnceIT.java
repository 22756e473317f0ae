package dev.exclusive.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
 * A quick {@code @Schedule @Exclusive(onBusy = SKIP)} job on two "servers" (two deployments, each with its own lock
 * registry, on one lock folder) whose timers fire 400 ms apart runs once per tick only with {@code minHold}.
 *
 * <p>Two pairs run at the same time, each on a lock of its own, for at least {@value #TICKS} ticks of 2 s: the pair
 * with {@code minHold = 1 s} (a little above the skew) runs every tick exactly once; the same pair without it (the
 * override {@code minHold=0}) runs ticks twice, because the job ends, and frees the lock, long before the late timer
 * fires. So the option is what makes it once.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ScheduleOnceIT {

    private static final Path DIR = Path.of("target", "schedule-it").toAbsolutePath();
    private static final int TICKS = 15;
    private static final long SKEW_MILLIS = 400;
    private static final String WITHOUT_MIN_HOLD = """
            dev.exclusive.demo.cluster.TickTimer/tick/Exclusive/minHold=0
            dev.exclusive.demo.cluster.TickTimer/tick/Exclusive/value=it:tick:without-min-hold
            """;

    @Deployment(name = "once-a", testable = false, order = 1)
    static WebArchive onceA() throws IOException {
        TickLog.empty(DIR);
        return server("once-a", 0, "");
    }

    @Deployment(name = "once-b", testable = false, order = 2)
    static WebArchive onceB() {
        return server("once-b", SKEW_MILLIS, "");
    }

    @Deployment(name = "twice-a", testable = false, order = 3)
    static WebArchive twiceA() {
        return server("twice-a", 0, WITHOUT_MIN_HOLD);
    }

    @Deployment(name = "twice-b", testable = false, order = 4)
    static WebArchive twiceB() {
        return server("twice-b", SKEW_MILLIS, WITHOUT_MIN_HOLD);
    }

    /** One server: its own registry on the shared lock folder, one prefix for all (a cluster of one application). */
    private static WebArchive server(String name, long delayMillis, String overrides) {
        return Deployments.slim(
                        name + ".war",
                        Deployments.LOCK_CONFIG + "exclusive.store.shared.prefix=schedule-it:\n" + "it.tick.dir=" + DIR
                                + "\n" + "it.tick.delay-millis=" + delayMillis + "\n" + overrides)
                .addClasses(TickTimer.class, FiresLate.class, LateTimerInterceptor.class);
    }

    @Test
    void withMinHoldAQuickJobRunsOncePerTickAndWithoutItTwice() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
        Map<Long, List<String>> once = TickLog.firedByAll(DIR, "once-a", "once-b");
        Map<Long, List<String>> twice = TickLog.firedByAll(DIR, "twice-a", "twice-b");
        while ((once.size() < TICKS || twice.size() < TICKS) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            once = TickLog.firedByAll(DIR, "once-a", "once-b");
            twice = TickLog.firedByAll(DIR, "twice-a", "twice-b");
        }
        System.out.println("ScheduleOnceIT with minHold: " + once);
        System.out.println("ScheduleOnceIT without minHold: " + twice);
        assertThat(once)
                .as("ticks both servers with minHold fired within 150 s")
                .hasSizeGreaterThanOrEqualTo(TICKS);
        assertThat(twice)
                .as("ticks both servers without minHold fired within 150 s")
                .hasSizeGreaterThanOrEqualTo(TICKS);

        once.forEach((tick, outcomes) ->
                assertThat(outcomes).as("tick %d with minHold", tick).containsExactlyInAnyOrder("ran", "skipped"));

        Map<Long, List<String>> ranTwice = twice.entrySet().stream()
                .filter(tick -> tick.getValue().equals(List.of("ran", "ran")))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(ranTwice)
                .as(
                        "without minHold, the same job ran twice in most ticks (it frees the lock before the late timer"
                                + " fires): %s",
                        twice)
                .hasSizeGreaterThanOrEqualTo(twice.size() / 2);
    }
}

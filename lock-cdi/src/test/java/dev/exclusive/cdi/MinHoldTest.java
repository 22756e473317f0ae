package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code @Exclusive(minHold = ...)}: a method that returns before the floor leaves its lock held until then, so a
 * second server's timer firing a little later finds it busy; the lock then frees itself at the floor, not at the ttl.
 */
class MinHoldTest {

    private static final Duration FLOOR = Duration.ofMillis(400);

    @ApplicationScoped
    static class Ticks {
        @Exclusive(value = "tick", ttl = 20_000, minHold = 400, unit = ChronoUnit.MILLIS, onBusy = OnBusy.SKIP)
        public String tick() {
            return "ran";
        }

        @Exclusive(value = "plain", ttl = 20_000, unit = ChronoUnit.MILLIS, onBusy = OnBusy.SKIP)
        public String plain() {
            return "ran";
        }

        @Exclusive(value = "configured", ttl = 20_000, unit = ChronoUnit.MILLIS, onBusy = OnBusy.SKIP)
        public String configured() {
            return "ran";
        }
    }

    @ApplicationScoped
    static class BadFloors {
        @Exclusive(value = "above", ttl = 10, minHold = 11)
        public void aboveTheTtl() {}

        @Exclusive(value = "negative", minHold = -1)
        public void negative() {}

        @Exclusive(value = "configured", ttl = 10)
        public void configuredAboveTheTtl() {}

        @Exclusive(value = "text")
        public void configuredAsText() {}
    }

    /** @return how long after {@code start} the lock {@code name} was seen free, polling until 10 s have passed */
    private static Duration freedAfter(LockRegistry registry, String name, long start) {
        long deadline = start + Duration.ofSeconds(10).toNanos();
        while (registry.lock(name, 1).isLocked()) {
            assertThat(System.nanoTime() - deadline).as("freed within 10 s").isNegative();
            Thread.onSpinWait();
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void aMethodThatReturnsBeforeTheFloorLeavesItsLockHeldUntilTheFloor() {
        try (Deployment deployment = Deployment.start(Map.of(), Ticks.class)) {
            Ticks ticks = deployment.select(Ticks.class);
            LockRegistry registry = deployment.select(LockRegistry.class);
            long start = System.nanoTime();

            assertThat(ticks.tick()).isEqualTo("ran");
            assertThat(ticks.tick())
                    .as("a second timer right after finds it busy")
                    .isNull();

            Duration freed = freedAfter(registry, "tick", start);
            assertThat(freed).as("held at least the floor").isGreaterThanOrEqualTo(FLOOR);
            assertThat(freed).as("freed at the floor, not at the 20 s ttl").isLessThan(Duration.ofSeconds(10));
            assertThat(ticks.tick()).as("runs again after the floor").isEqualTo("ran");
        }
    }

    @Test
    void withoutMinHoldTheLockIsFreedWhenTheMethodReturns() {
        try (Deployment deployment = Deployment.start(Map.of(), Ticks.class)) {
            Ticks ticks = deployment.select(Ticks.class);

            assertThat(ticks.plain()).isEqualTo("ran");
            assertThat(ticks.plain()).as("not held after the first call").isEqualTo("ran");
        }
    }

    @Test
    void minHoldIsOverridableInConfig() {
        Map<String, String> config = Map.of(Ticks.class.getName() + "/configured/Exclusive/minHold", "400");
        try (Deployment deployment = Deployment.start(config, Ticks.class)) {
            Ticks ticks = deployment.select(Ticks.class);
            LockRegistry registry = deployment.select(LockRegistry.class);
            long start = System.nanoTime();

            assertThat(ticks.configured()).isEqualTo("ran");
            assertThat(ticks.configured()).as("held after the return").isNull();
            assertThat(freedAfter(registry, "configured", start)).isGreaterThanOrEqualTo(FLOOR);
        }
    }

    @Test
    void aFloorAboveTheTtlOrBelowZeroFailsDeploymentWithEveryOtherProblem() {
        String bean = BadFloors.class.getName();
        Map<String, String> config = Map.of(
                bean + "/configuredAboveTheTtl/Exclusive/minHold", "11",
                bean + "/configuredAsText/Exclusive/minHold", "5s");

        Throwable failure =
                catchThrowable(() -> Deployment.start(config, BadFloors.class).close());

        assertThat(failure).isNotNull();
        String message = failure.getMessage();
        assertThat(message).contains(DeploymentException.class.getName() + ": Exclusive: 4 problems");
        assertThat(message)
                .contains("@Exclusive on " + bean + "#aboveTheTtl(): minHold must be between 0 and the ttl (10"
                        + " SECONDS), got 11 SECONDS; a hold cannot last at least longer than its lease: lower minHold"
                        + " or raise ttl");
        assertThat(message).contains("#negative(): minHold must be between 0 and the ttl (30 SECONDS), got -1 SECONDS");
        assertThat(message)
                .contains("#configuredAboveTheTtl(): minHold must be between 0 and the ttl (10 SECONDS), got 11"
                        + " SECONDS (from config key " + bean + "/configuredAboveTheTtl/Exclusive/minHold)");
        assertThat(message)
                .contains(bean + "/configuredAsText/Exclusive/minHold: '5s' is not a valid minHold for @Exclusive on "
                        + bean + "#configuredAsText(); expected a whole number in the unit");
    }
}

package dev.exclusive.demo.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.cdi.Exclusive;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The longest work a demo call may ask for ends before the lock of the job that runs it. */
class SimulatedWorkTest {

    @Test
    void noDemoJobCanBeAskedToOutliveItsLease() {
        for (Class<?> job : List.of(DailyReport.class, NightlyExport.class, RatesRefresh.class, UserImport.class)) {
            for (Method method : job.getDeclaredMethods()) {
                Exclusive exclusive = method.getAnnotation(Exclusive.class);
                if (exclusive != null) {
                    Duration ttl = Duration.of(exclusive.ttl(), exclusive.unit());
                    assertThat(SimulatedWork.MAX)
                            .as(
                                    "the longest demo work against the lease of %s#%s",
                                    job.getSimpleName(), method.getName())
                            .isLessThan(ttl.minusSeconds(10));
                }
            }
        }
    }
}

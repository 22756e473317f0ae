package dev.exclusive.demo.jobs;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.OnBusy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rebuilds the daily report. A second rebuild while one runs (on this server or any other sharing the store) is
 * pointless, so it is skipped: the method does not run and returns {@code Optional.empty()}.
 */
@ApplicationScoped
public class DailyReport {

    private final AtomicInteger rebuilds = new AtomicInteger();

    /** A rebuilt report. */
    public record Report(int number, Instant startedAt, Instant finishedAt) {}

    /**
     * @param work how long the rebuild takes
     * @return the report, or empty if another rebuild was running
     */
    @Exclusive(value = "reports:daily", ttl = 120, onBusy = OnBusy.SKIP)
    public Optional<Report> rebuild(Duration work) {
        Instant startedAt = Instant.now();
        SimulatedWork.take(work);
        return Optional.of(new Report(rebuilds.incrementAndGet(), startedAt, Instant.now()));
    }
}

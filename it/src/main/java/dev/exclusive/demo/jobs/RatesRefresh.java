package dev.exclusive.demo.jobs;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.OnBusy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Refreshes this server's cache of exchange rates from a third-party API. Each server keeps its own cache, so the
 * lock only has to keep this server's threads apart: it lives in the {@code local} store (memory), and a refresh
 * requested while one runs on this server is skipped. Another server refreshes its own cache at the same time.
 */
@ApplicationScoped
public class RatesRefresh {

    private final AtomicInteger refreshes = new AtomicInteger();

    /** A refresh of the cached rates. */
    public record Refresh(int number, Instant startedAt, Instant finishedAt) {}

    /**
     * @param work how long the third-party API takes to answer
     * @return the refresh, or empty if another thread of this server was refreshing
     */
    @Exclusive(value = "rates:refresh", store = "local", ttl = 120, onBusy = OnBusy.SKIP)
    public Optional<Refresh> refresh(Duration work) {
        Instant startedAt = Instant.now();
        SimulatedWork.take(work);
        return Optional.of(new Refresh(refreshes.incrementAndGet(), startedAt, Instant.now()));
    }
}

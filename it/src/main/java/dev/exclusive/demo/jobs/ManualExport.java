package dev.exclusive.demo.jobs;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * An export locked by hand through the injected {@link LockRegistry}, for code that needs more than the
 * annotation gives: here the fencing token, which a real export would write next to its output so that a
 * stale holder's late write can be told apart.
 */
@ApplicationScoped
public class ManualExport {

    @Inject
    LockRegistry locks;

    /** A finished export and the fencing token of the hold it ran under. */
    public record Export(long fence, String store, Instant startedAt, Instant finishedAt) {}

    /**
     * @param work how long the export takes
     * @return the export, or empty if another one holds the lock
     */
    public Optional<Export> run(Duration work) {
        Lock lock = locks.lock("exports:manual", Duration.ofMinutes(2)).purpose("ManualExport#run");
        if (!lock.get()) {
            return Optional.empty();
        }
        try {
            Instant startedAt = Instant.now();
            SimulatedWork.take(work);
            return Optional.of(new Export(lock.fence().orElseThrow(), lock.storeName(), startedAt, Instant.now()));
        } finally {
            lock.release();
        }
    }
}

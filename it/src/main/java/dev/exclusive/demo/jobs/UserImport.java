package dev.exclusive.demo.jobs;

import dev.exclusive.cdi.Exclusive;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;

/**
 * Imports users. Two imports must not overlap, but a second one should still run: it waits up to 5 s for the
 * first to finish, and only then gives up with {@code LockBusyException} (409 with Retry-After over REST).
 */
@ApplicationScoped
public class UserImport {

    /** What an import did. */
    public record ImportRun(Instant startedAt, Instant finishedAt) {}

    /** @param work how long the import takes */
    @Exclusive(value = "imports:users", ttl = 60, maxWait = 5)
    public ImportRun importUsers(Duration work) {
        Instant startedAt = Instant.now();
        SimulatedWork.take(work);
        return new ImportRun(startedAt, Instant.now());
    }
}

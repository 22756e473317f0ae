package dev.exclusive.jpa;

import dev.exclusive.LockStoreUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When the opportunistic cleanup runs: at most every quarter of the retention (between one minute and one hour)
 * by this JVM's clock, which decides nothing else. Only one thread wins each turn.
 */
final class Cleanup {

    private static final System.Logger LOG = System.getLogger(JpaLockStore.class.getName());

    private final Duration retention;
    private final Clock clock;
    private final long everyMillis;
    private final AtomicLong next;

    Cleanup(Duration retention, Clock clock) {
        this.retention = retention;
        this.clock = clock;
        this.everyMillis = Math.max(60_000, Math.min(3_600_000, retention.toMillis() / 4));
        this.next = new AtomicLong(clock.millis() + everyMillis);
    }

    /** @return how long after its last lease ended a row is kept */
    Duration retention() {
        return retention;
    }

    /** Runs {@code cleanUp} if its turn has come and this thread won it; a failure is logged and left to the next turn. */
    void runIfDue(Runnable cleanUp, String table) {
        long now = clock.millis();
        long due = next.get();
        if (now < due || !next.compareAndSet(due, now + everyMillis)) {
            return;
        }
        logged(cleanUp, table);
    }

    /** Runs {@code cleanUp}; a failure is logged and left to the next turn. */
    static void logged(Runnable cleanUp, String table) {
        try {
            cleanUp.run();
        } catch (LockStoreUnavailableException e) {
            // Best effort: the lock is already acquired, and the next turn deletes what this one could not.
            LOG.log(System.Logger.Level.WARNING, "Cleanup of lock table " + table + " failed; retried later", e);
        } catch (IllegalStateException closed) {
            // the store was closed while its cleanup ran aside: nothing to do
        }
    }
}

package dev.exclusive.jpa;

import static dev.exclusive.jpa.PostgresWaits.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.spi.Acquisition;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL an attempt on a lock that is busy changes nothing: it neither locks the row (which the holder's
 * release would then wait for) nor answers a remaining time read from a row version that is no longer the lock's;
 * and one on a free row that another transaction is taking over answers busy at once, for an unknown time, instead
 * of waiting for that transaction's commit.
 */
class PostgresBusyAttemptTest extends AbstractBusyAttemptTest {

    private static final String TABLE = "exclusive_lock_busy";

    PostgresBusyAttemptTest() {
        super(TestDatabase.POSTGRES, TABLE);
    }

    @Override
    String takeOverForAnother(String name) {
        return "UPDATE " + TABLE + " SET owner = 'other', expires_at = CURRENT_TIMESTAMP + INTERVAL '60 seconds'"
                + " WHERE name = '" + name + "'";
    }

    @Override
    boolean waitsForAnotherAcquirer() {
        return false;
    }

    /**
     * The waiter's mark then finds the row not live (the other acquirer has not committed yet): it pauses before its
     * next attempt, rather than trying again at once and again until that commit (and its flush) is done. The
     * shortest of five waits, so that a first statement's preparation does not count.
     */
    @Test
    void aWaiterWhoseAttemptSkippedARowBeingTakenPausesBeforeTryingAgain() throws Exception {
        String name = "taking-" + UUID.randomUUID();
        assertTrue(store.tryAcquire(name, "first", HOLDER, TTL).acquired());
        assertTrue(store.release(name, "first"));
        store.awaitRelease(name, Duration.ofMillis(1)); // starts the listener, without which nobody marks
        awaitTrue(() -> store.listener().listening(), "the store listens");
        long shortest = Long.MAX_VALUE;
        try (Connection taking = holdingTheRow(name)) {
            for (int i = 0; i < 5; i++) {
                Acquisition.Busy busy =
                        assertInstanceOf(Acquisition.Busy.class, store.tryAcquire(name, "waiter", HOLDER, TTL));
                assertNull(busy.remaining(), "busy for an unknown time: the row is free, but another has it");
                long start = System.nanoTime();
                store.awaitRelease(name, Duration.ofSeconds(10));
                shortest = Math.min(shortest, System.nanoTime() - start);
            }
            taking.commit();
        }
        assertTrue(
                shortest >= TimeUnit.MILLISECONDS.toNanos(2) && shortest < TimeUnit.SECONDS.toNanos(5),
                "paused at least " + shortest / 1_000 + " µs: at least 2 ms each time, and not for the whole wait");
    }

    @Test
    void anAttemptOnALockLiveForAnotherOwnerAnswersBusyWithoutWaitingForTheRowLock() throws Exception {
        String name = "busy-" + UUID.randomUUID();
        assertTrue(store.tryAcquire(name, "holder", HOLDER, TTL).acquired());
        try (Connection blocking = holdingTheRow(name)) {
            CompletableFuture<Acquisition> attempt =
                    CompletableFuture.supplyAsync(() -> store.tryAcquire(name, "waiter", HOLDER, TTL));
            try {
                Acquisition outcome = attempt.get(3, TimeUnit.SECONDS);
                Acquisition.Busy busy = assertInstanceOf(Acquisition.Busy.class, outcome);
                assertTrue(
                        busy.remaining().compareTo(Duration.ofSeconds(30)) > 0,
                        "the holder's remaining time, got " + busy.remaining());
            } finally {
                blocking.commit();
            }
        }
        assertTrue(store.release(name, "holder"));
    }
}

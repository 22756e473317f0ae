package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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

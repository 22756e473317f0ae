package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A pool whose connections refuse a network timeout with a plain {@link SQLException} (as some pools' wrappers do,
 * rather than {@code SQLFeatureNotSupportedException}) does not fail the lock operations: the store falls back to
 * the statements' query timeout, as it does for a driver without network timeouts. It runs on PostgreSQL, whose
 * statements get no query timeout once the connections take network timeouts: a refusal must bring it back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusedNetworkTimeoutTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_refused_timeout";
    private static final TestDatabase DATABASE = TestDatabase.POSTGRES;

    @BeforeAll
    void freshTable() throws SQLException {
        DATABASE.assumeAvailable();
        DATABASE.dropTable(TABLE);
    }

    @Test
    void aPoolThatRefusesNetworkTimeoutsGetsQueryTimeoutsAndTheLocksWork() {
        RecordingProvider pool = new RecordingProvider(DATABASE, true);
        try (EntityManagerFactory factory = DATABASE.open(Map.of("hibernate.connection.provider_class", pool));
                JpaLockStore store = JpaLockStore.builder(factory)
                        .table(TABLE)
                        .createTable(true)
                        .timeout(Duration.ofSeconds(3))
                        .build()) {
            for (int i = 0; i < 3; i++) {
                assertTrue(store.tryAcquire("refused", "owner-" + i, HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("refused", "owner-" + i));
            }
            assertTrue(pool.refusals.get() >= 1, "the pool was asked for a network timeout and refused it");
            // the acquisitions (a WITH) and releases (an UPDATE); Hibernate's own statements, such as the DDL, get
            // its default of 0
            List<Integer> locking = pool.queryTimeoutsOn(TABLE, "WITH ", "UPDATE ");
            assertEquals(List.of(3, 3, 3, 3, 3, 3), locking, "the store's timeout in s, on each acquire and release");
        }
    }
}

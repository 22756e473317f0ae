package dev.exclusive.bench.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floors every jpa ratio is measured against are correct locks themselves, or the ratios mean nothing: a second
 * owner is refused while the lock is held, the owner's release frees it, and a handover moves the lock only from its
 * owner and with a greater fence. On the local PostgreSQL, as the benchmarks run.
 */
class RawJdbcLocksTest {

    private static final long TTL = 30_000;

    private final String name = "floor-test:" + UUID.randomUUID();

    @BeforeAll
    static void postgresIsUp() {
        try (Connection ignored = BenchDatabase.POSTGRESQL.connect()) {
            // reachable
        } catch (SQLException e) {
            String message = "PostgreSQL at 127.0.0.1:5432 (database test) is not reachable (" + e.getMessage() + ")";
            if ("true".equals(System.getenv("CI"))) {
                fail(message + " — CI=true, so a missing database fails the build");
            }
            Assumptions.abort(message + "; skipped because CI is not true");
        }
    }

    @Test
    void eachFloorRefusesASecondOwnerUntilTheFirstReleases() throws SQLException {
        try (RawJdbcLocks floor = new RawJdbcLocks(BenchDatabase.POSTGRESQL);
                RawJdbcLocks unflushed = RawJdbcLocks.unflushedRelease(BenchDatabase.POSTGRESQL);
                RawJdbcLocks fenced = RawJdbcLocks.fenced(BenchDatabase.POSTGRESQL)) {
            for (RawJdbcLocks locks : new RawJdbcLocks[] {floor, unflushed, fenced}) {
                assertTrue(locks.acquire(name, "a", TTL));
                assertFalse(locks.acquire(name, "b", TTL), "a second owner while the first holds");
                assertFalse(locks.release(name, "b"), "a release by another owner");
                assertTrue(locks.release(name, "a"));
                assertTrue(locks.acquire(name, "b", TTL), "free again after the owner's release");
                assertTrue(locks.release(name, "b"));
            }
        }
    }

    @Test
    void aHandoverMovesTheLockOnlyFromItsOwnerAndWithAGreaterFence() throws SQLException {
        try (RawJdbcLocks fenced = RawJdbcLocks.fenced(BenchDatabase.POSTGRESQL);
                Connection reader = BenchDatabase.POSTGRESQL.connect()) {
            assertTrue(fenced.acquire(name, "a", TTL));
            long first = fence(reader);
            assertFalse(fenced.handOver(name, "b", "c", TTL), "a handover by a non-owner");
            assertTrue(fenced.handOver(name, "a", "b", TTL));
            assertTrue(fence(reader) > first, "the next holder's fence is greater");
            assertFalse(fenced.acquire(name, "a", TTL), "the lock is b's now");
            assertFalse(fenced.release(name, "a"));
            assertTrue(fenced.release(name, "b"));
        }
    }

    @Test
    void onlyTheFencedFloorOnPostgresHandsOver() throws SQLException {
        try (RawJdbcLocks floor = new RawJdbcLocks(BenchDatabase.POSTGRESQL)) {
            assertThrows(IllegalStateException.class, () -> floor.handOver(name, "a", "b", TTL));
        }
    }

    private long fence(Connection reader) throws SQLException {
        try (PreparedStatement query =
                reader.prepareStatement("SELECT fence FROM " + RawJdbcLocks.FENCED_TABLE + " WHERE name = ?")) {
            query.setString(1, name);
            try (ResultSet rows = query.executeQuery()) {
                assertTrue(rows.next(), "the fenced row exists");
                return rows.getLong(1);
            }
        }
    }
}

package dev.exclusive.bench.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The floor the jpa store is measured against: the least a correct lock on a database table must do per
 * acquire+release, over one JDBC connection in autocommit with prepared statements kept open. Acquire is one
 * upsert that takes the row only when it is free or expired (the insert of a new name included); release is one
 * delete checked by owner. Its table {@code bench_floor_lock} has just a name, an owner and an expiry: no fence, no
 * holder, no acquisition time, no remaining time for a busy answer, nothing read back.
 *
 * <p>{@link #fenced} is the same with a fencing token, which the store's contract asks for ({@code fence()} grows
 * with every hold of a name): the upsert also takes the next value of a sequence and returns it, in the same
 * statement. A sequence rather than a counter in the row, so that the release can still delete the row: the least
 * work for a fence that only grows. Its table is {@code bench_fenced_lock}, its sequence {@code bench_fenced_fence}.
 *
 * <p>{@link #unflushedRelease} (PostgreSQL) is the floor whose delete commits without waiting for its flush
 * ({@code synchronous_commit} off for that one transaction), as the jpa store's release does: the floor of a lock
 * that makes the same trade, so that the store is also compared with like. Its table is
 * {@code bench_unflushed_lock}.
 *
 * <p>{@link #handOver} (PostgreSQL, on {@link #fenced}) moves a held row straight to the next owner with the next
 * fence, in one statement that commits durably: the least a lock does per hold that records every grant with a
 * fence and lets no grant be lost in a crash, its release folded into the next holder's grant.
 */
final class RawJdbcLocks implements AutoCloseable {

    static final String TABLE = "bench_floor_lock";
    static final String FENCED_TABLE = "bench_fenced_lock";
    static final String UNFLUSHED_TABLE = "bench_unflushed_lock";

    /** What a floor adds to the least: nothing, a fence, or a release that does not wait for its flush. */
    private enum Kind {
        PLAIN,
        FENCED,
        UNFLUSHED
    }

    private final Connection connection;
    private final boolean fenced;
    /** MariaDB's fenced RETURNING compares the owner: a fourth parameter. */
    private final boolean ownerReturned;
    /** The release is a query: it answers a row when it deleted one. */
    private final boolean unflushed;

    private final PreparedStatement acquire;
    private final PreparedStatement release;
    /** PostgreSQL, fenced: the row to the next owner with the next fence, if the given owner holds it. */
    private final PreparedStatement handOver;

    RawJdbcLocks(BenchDatabase database) throws SQLException {
        this(database, Kind.PLAIN);
    }

    private RawJdbcLocks(BenchDatabase database, Kind kind) throws SQLException {
        this.connection = database.connectAffectedRows();
        this.connection.setAutoCommit(true);
        this.fenced = kind == Kind.FENCED;
        this.unflushed = kind == Kind.UNFLUSHED;
        this.ownerReturned = fenced && database == BenchDatabase.MARIADB;
        if (unflushed && database != BenchDatabase.POSTGRESQL) {
            throw new IllegalArgumentException("only PostgreSQL commits a transaction of its own choice unflushed");
        }
        String table = fenced ? FENCED_TABLE : unflushed ? UNFLUSHED_TABLE : TABLE;
        String sequence = "bench_fenced_fence";
        try (Statement statement = connection.createStatement()) {
            if (database == BenchDatabase.POSTGRESQL) {
                String fence = fenced ? ", fence BIGINT NOT NULL" : "";
                statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (name VARCHAR(255) COLLATE \"C\" PRIMARY"
                        + " KEY, owner VARCHAR(255) NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL" + fence
                        + ")");
                String expires = "CURRENT_TIMESTAMP + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond'";
                String taken = " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at ="
                        + " EXCLUDED.expires_at";
                String free = " WHERE l.expires_at <= CURRENT_TIMESTAMP";
                if (fenced) {
                    statement.execute("CREATE SEQUENCE IF NOT EXISTS " + sequence);
                    acquire = connection.prepareStatement("INSERT INTO " + table + " AS l (name, owner, expires_at,"
                            + " fence) VALUES (?, ?, " + expires + ", nextval('" + sequence + "'))" + taken
                            + ", fence = EXCLUDED.fence" + free + " RETURNING fence");
                } else {
                    acquire = connection.prepareStatement("INSERT INTO " + table + " AS l (name, owner, expires_at)"
                            + " VALUES (?, ?, " + expires + ")" + taken + free);
                }
            } else {
                String fence = fenced ? ", fence BIGINT NOT NULL" : "";
                statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (name VARCHAR(255) CHARACTER SET utf8mb4"
                        + " COLLATE utf8mb4_nopad_bin PRIMARY KEY, owner VARCHAR(255) NOT NULL, expires_at"
                        + " DATETIME(6) NOT NULL" + fence + ") ENGINE=InnoDB");
                String expires = "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL (? * 1000) MICROSECOND)";
                // left to right: owner is taken only when expired, and expires_at (and fence) follow the owner it
                // now has
                String taken = " ON DUPLICATE KEY UPDATE owner = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(owner),"
                        + " owner), expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)";
                if (fenced) {
                    statement.execute("CREATE SEQUENCE IF NOT EXISTS " + sequence);
                    acquire = connection.prepareStatement("INSERT INTO " + table + " (name, owner, expires_at, fence)"
                            + " VALUES (?, ?, " + expires + ", NEXTVAL(" + sequence + "))" + taken
                            + ", fence = IF(owner = VALUES(owner), VALUES(fence), fence)"
                            + " RETURNING CASE WHEN owner = ? THEN fence ELSE 0 END");
                } else {
                    acquire = connection.prepareStatement("INSERT INTO " + table
                            + " (name, owner, expires_at) VALUES (?, ?, " + expires + ")" + taken);
                }
            }
        }
        String delete = "DELETE FROM " + table + " WHERE name = ? AND owner = ?";
        release = connection.prepareStatement(
                unflushed
                        ? "WITH deleted AS (" + delete + " RETURNING 1) SELECT set_config('synchronous_commit', 'off',"
                                + " true) FROM deleted"
                        : delete);
        handOver = fenced && database == BenchDatabase.POSTGRESQL
                ? connection.prepareStatement("UPDATE " + table + " SET owner = ?, expires_at = CURRENT_TIMESTAMP +"
                        + " CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond', fence = nextval('" + sequence
                        + "') WHERE name = ? AND owner = ? RETURNING fence")
                : null;
    }

    /** @return the fenced floor on {@code database} */
    static RawJdbcLocks fenced(BenchDatabase database) throws SQLException {
        return new RawJdbcLocks(database, Kind.FENCED);
    }

    /** @return the floor whose release does not wait for its flush; PostgreSQL only */
    static RawJdbcLocks unflushedRelease(BenchDatabase database) throws SQLException {
        return new RawJdbcLocks(database, Kind.UNFLUSHED);
    }

    /**
     * @return whether the lock was acquired (a row inserted or taken over); fenced, whether a fence came back for
     *     this owner
     */
    boolean acquire(String name, String owner, long ttlMillis) throws SQLException {
        acquire.setString(1, name);
        acquire.setString(2, owner);
        acquire.setLong(3, ttlMillis);
        if (!fenced) {
            return acquire.executeUpdate() > 0;
        }
        if (ownerReturned) {
            acquire.setString(4, owner);
        }
        try (ResultSet rows = acquire.executeQuery()) {
            return rows.next() && rows.getLong(1) > 0;
        }
    }

    boolean release(String name, String owner) throws SQLException {
        release.setString(1, name);
        release.setString(2, owner);
        if (unflushed) {
            try (ResultSet rows = release.executeQuery()) {
                return rows.next();
            }
        }
        return release.executeUpdate() == 1;
    }

    /**
     * @return whether {@code from} held the lock, which now belongs to {@code to} with a new fence; a fenced floor on
     *     PostgreSQL only
     */
    boolean handOver(String name, String from, String to, long ttlMillis) throws SQLException {
        if (handOver == null) {
            throw new IllegalStateException("a handover is built for the fenced floor on PostgreSQL only");
        }
        handOver.setString(1, to);
        handOver.setLong(2, ttlMillis);
        handOver.setString(3, name);
        handOver.setString(4, from);
        try (ResultSet rows = handOver.executeQuery()) {
            return rows.next();
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}

package dev.exclusive.bench.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The floor the jpa store is measured against: the least a correct lock on a database table must do per
 * acquire+release, over one JDBC connection in autocommit with prepared statements kept open. Acquire is one
 * upsert that takes the row only when it is free or expired (the insert of a new name included); release is one
 * delete checked by owner. Its table {@code bench_floor_lock} has just a name, an owner and an expiry: no fence, no
 * holder, no acquisition time, no remaining time for a busy answer, nothing read back.
 */
final class RawJdbcLocks implements AutoCloseable {

    static final String TABLE = "bench_floor_lock";

    private final Connection connection;
    private final PreparedStatement acquire;
    private final PreparedStatement release;

    RawJdbcLocks(BenchDatabase database) throws SQLException {
        this.connection = database.connectAffectedRows();
        this.connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            if (database == BenchDatabase.POSTGRESQL) {
                statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(255) COLLATE \"C\" PRIMARY"
                        + " KEY, owner VARCHAR(255) NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL)");
                acquire = connection.prepareStatement("INSERT INTO " + TABLE + " AS l (name, owner, expires_at) VALUES"
                        + " (?, ?, CURRENT_TIMESTAMP + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond')"
                        + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
                        + " WHERE l.expires_at <= CURRENT_TIMESTAMP");
            } else {
                statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(255) CHARACTER SET utf8mb4"
                        + " COLLATE utf8mb4_nopad_bin PRIMARY KEY, owner VARCHAR(255) NOT NULL, expires_at"
                        + " DATETIME(6) NOT NULL) ENGINE=InnoDB");
                // left to right: owner is taken only when expired, and expires_at follows the owner it now has
                acquire = connection.prepareStatement("INSERT INTO " + TABLE + " (name, owner, expires_at) VALUES"
                        + " (?, ?, DATE_ADD(UTC_TIMESTAMP(6), INTERVAL (? * 1000) MICROSECOND)) ON DUPLICATE KEY"
                        + " UPDATE owner = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(owner), owner),"
                        + " expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)");
            }
        }
        release = connection.prepareStatement("DELETE FROM " + TABLE + " WHERE name = ? AND owner = ?");
    }

    /** @return whether the lock was acquired (a row inserted or taken over) */
    boolean acquire(String name, String owner, long ttlMillis) throws SQLException {
        acquire.setString(1, name);
        acquire.setString(2, owner);
        acquire.setLong(3, ttlMillis);
        return acquire.executeUpdate() > 0;
    }

    boolean release(String name, String owner) throws SQLException {
        release.setString(1, name);
        release.setString(2, owner);
        return release.executeUpdate() == 1;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}

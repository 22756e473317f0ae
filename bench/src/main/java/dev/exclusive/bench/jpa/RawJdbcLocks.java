package dev.exclusive.bench.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The reference: the jpa store's hot-path statements hand-written over one JDBC connection with prepared
 * statements kept open, the same transactions (take-over committed with its read-back; release on its own).
 */
final class RawJdbcLocks implements AutoCloseable {

    private final Connection connection;
    private final boolean postgres;
    private final PreparedStatement takeOver;
    private final PreparedStatement readLease;
    private final PreparedStatement release;

    RawJdbcLocks(BenchDatabase database) throws SQLException {
        this.connection = database.connect();
        this.connection.setAutoCommit(false);
        this.postgres = database == BenchDatabase.POSTGRESQL;
        if (postgres) {
            takeOver = connection.prepareStatement("UPDATE exclusive_lock SET owner = ?, holder = ?, acquired_at = "
                    + "CURRENT_TIMESTAMP, expires_at = (CURRENT_TIMESTAMP + CAST(? AS DOUBLE PRECISION) * INTERVAL "
                    + "'1 millisecond'), fence = fence + 1 WHERE name = ? AND (owner IS NULL OR expires_at <= "
                    + "CURRENT_TIMESTAMP) RETURNING fence, CAST(FLOOR(EXTRACT(EPOCH FROM acquired_at) * 1000) AS "
                    + "BIGINT), CAST(FLOOR(EXTRACT(EPOCH FROM expires_at) * 1000) AS BIGINT)");
            readLease = null;
            release = connection.prepareStatement("UPDATE exclusive_lock SET owner = NULL, expires_at = "
                    + "CURRENT_TIMESTAMP WHERE name = ? AND owner = ? AND owner IS NOT NULL AND expires_at > "
                    + "CURRENT_TIMESTAMP");
        } else {
            takeOver = connection.prepareStatement("UPDATE exclusive_lock SET owner = ?, holder = ?, acquired_at = "
                    + "UTC_TIMESTAMP(6), expires_at = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL (? * 1000) MICROSECOND), "
                    + "fence = fence + 1 WHERE name = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(6))");
            readLease = connection.prepareStatement("SELECT fence, (TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', "
                    + "acquired_at) DIV 1000), (TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', expires_at) DIV 1000) "
                    + "FROM exclusive_lock WHERE name = ?");
            release = connection.prepareStatement("UPDATE exclusive_lock SET owner = NULL, expires_at = "
                    + "UTC_TIMESTAMP(6) WHERE name = ? AND owner = ? AND owner IS NOT NULL AND expires_at > "
                    + "UTC_TIMESTAMP(6)");
        }
    }

    /** @return the fence, or -1 when busy (the benchmark's rows always exist) */
    long acquire(String name, String owner, String holder, long ttlMillis) throws SQLException {
        takeOver.setString(1, owner);
        takeOver.setString(2, holder);
        takeOver.setLong(3, ttlMillis);
        takeOver.setString(4, name);
        long fence = -1;
        if (postgres) {
            try (ResultSet row = takeOver.executeQuery()) {
                if (row.next()) {
                    fence = row.getLong(1) + row.getLong(2) % 2 + row.getLong(3) % 2;
                }
            }
        } else if (takeOver.executeUpdate() == 1) {
            readLease.setString(1, name);
            try (ResultSet row = readLease.executeQuery()) {
                row.next();
                fence = row.getLong(1) + row.getLong(2) % 2 + row.getLong(3) % 2;
            }
        }
        connection.commit();
        return fence;
    }

    boolean release(String name, String owner) throws SQLException {
        release.setString(1, name);
        release.setString(2, owner);
        boolean released = release.executeUpdate() == 1;
        connection.commit();
        return released;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}

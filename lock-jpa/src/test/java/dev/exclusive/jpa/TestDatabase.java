package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.fail;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * A database the tests run on: its persistence unit in {@code src/test/resources/META-INF/persistence.xml}, and
 * how to reach it with plain JDBC. A server that is not reachable skips the tests, unless CI=true: then it fails.
 */
record TestDatabase(String label, String unit, String url, String user, String password, String skewedUrl) {

    static final TestDatabase H2 = new TestDatabase(
            "H2 (in memory)",
            "exclusive-h2",
            "jdbc:h2:mem:exclusive;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000",
            "sa",
            "",
            "jdbc:h2:mem:exclusive;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000;TIME ZONE=Pacific/Kiritimati");

    static final TestDatabase POSTGRES = new TestDatabase(
            "PostgreSQL at 127.0.0.1:5432 (database test, user postgres)",
            "exclusive-postgres",
            "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=5&loginTimeout=5&socketTimeout=30",
            "postgres",
            "",
            "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=5&loginTimeout=5&socketTimeout=30"
                    + "&options=-c%20TimeZone=Pacific/Kiritimati");

    static final TestDatabase MARIADB = new TestDatabase(
            "MariaDB at 127.0.0.1:3306 (database test, user root)",
            "exclusive-mariadb",
            "jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=5000&socketTimeout=30000",
            "root",
            "",
            "jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=5000&socketTimeout=30000"
                    + "&sessionVariables=time_zone='+13:00'");

    /** Skips the calling test class when the server is down, or fails it under CI=true. */
    void assumeAvailable() {
        try (Connection ignored = connect()) {
            // reachable
        } catch (SQLException e) {
            String message = label + " is not reachable (" + e.getMessage() + "); start it to run these tests";
            if ("true".equals(System.getenv("CI"))) {
                fail(message + " — CI=true, so a missing database fails the build");
            }
            Assumptions.abort(message + " (skipped because CI is not true)");
        }
    }

    Connection connect() throws SQLException {
        DriverManager.setLoginTimeout(5);
        return DriverManager.getConnection(url, user, password);
    }

    EntityManagerFactory open() {
        return open(Map.of());
    }

    EntityManagerFactory open(Map<String, ?> overrides) {
        return Persistence.createEntityManagerFactory(unit, new HashMap<>(overrides));
    }

    /**
     * @param proxy a proxy in front of PostgreSQL at 127.0.0.1:5432
     * @return a factory of the PostgreSQL unit whose connections go through {@code proxy}, 2 s to connect and log in,
     *         with no socket timeout: only the store's own timeouts end a read that the proxy silenced
     */
    static EntityManagerFactory postgresThrough(SilencingProxy proxy) {
        return POSTGRES.open(Map.of(
                "jakarta.persistence.jdbc.url",
                "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?connectTimeout=2&loginTimeout=2"));
    }

    /** @return a factory whose JDBC sessions live in UTC+13 or +14, another notion of the local time than the server's */
    EntityManagerFactory openSkewedSession() {
        return open(Map.of("jakarta.persistence.jdbc.url", skewedUrl));
    }

    /**
     * Creates {@code table} with a name column that compares case-insensitively, as a table made by hand or
     * generated from {@link LockRow} with the database's default collation may.
     */
    void createCaseInsensitiveTable(String table) throws SQLException {
        dropTable(table);
        String name;
        String timestamp;
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            switch (unit) {
                case "exclusive-postgres" -> {
                    statement.execute("CREATE COLLATION IF NOT EXISTS exclusive_test_ci"
                            + " (provider = icu, locale = 'und-u-ks-level2', deterministic = false)");
                    name = "VARCHAR(255) COLLATE exclusive_test_ci";
                    timestamp = "TIMESTAMP WITH TIME ZONE";
                }
                case "exclusive-mariadb" -> {
                    name = "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci";
                    timestamp = "DATETIME(6)";
                }
                default -> {
                    name = "VARCHAR_IGNORECASE(255)";
                    timestamp = "TIMESTAMP(6) WITH TIME ZONE";
                }
            }
            statement.execute("CREATE TABLE " + table + " (name " + name + " NOT NULL PRIMARY KEY, owner VARCHAR(255),"
                    + " holder VARCHAR(1000), acquired_at " + timestamp + " NOT NULL, expires_at " + timestamp
                    + " NOT NULL, fence BIGINT NOT NULL)");
        }
    }

    /** @return a connection whose open transaction holds {@code name}'s row lock in {@code table}; commit it to let go */
    Connection holdingTheRow(String table, String name) throws SQLException {
        Connection blocking = connect();
        try {
            blocking.setAutoCommit(false);
            try (Statement statement = blocking.createStatement()) {
                statement
                        .executeQuery("SELECT 1 FROM " + table + " WHERE name = '" + name + "' FOR UPDATE")
                        .close();
            }
            return blocking;
        } catch (SQLException | RuntimeException e) {
            blocking.close();
            throw e;
        }
    }

    /** Drops a table, for tests that want a fresh one. */
    void dropTable(String table) throws SQLException {
        try (Connection connection = connect()) {
            connection.createStatement().execute("DROP TABLE IF EXISTS " + table);
        }
    }
}

package dev.exclusive.bench.jpa;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/** The databases the jpa benchmarks run on, with their persistence units in bench's persistence.xml. */
public enum BenchDatabase {
    POSTGRESQL("exclusive-bench-postgres", "jdbc:postgresql://127.0.0.1:5432/test", "postgres"),
    /**
     * Statements prepared on the server, as README recommends for the store's unit and its persistence unit here
     * sets; the floors' connections get the same, so that both sides are parsed alike.
     */
    MARIADB("exclusive-bench-mariadb", "jdbc:mariadb://127.0.0.1:3306/test?useServerPrepStmts=true", "root");

    final String unit;
    final String url;
    final String user;

    BenchDatabase(String unit, String url, String user) {
        this.unit = unit;
        this.url = url;
        this.user = user;
    }

    EntityManagerFactory factory() {
        return Persistence.createEntityManagerFactory(unit, Map.of());
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, "");
    }

    /** @return a connection whose update counts are rows changed, not rows found (MariaDB's useAffectedRows) */
    Connection connectAffectedRows() throws SQLException {
        return DriverManager.getConnection(this == MARIADB ? url + "&useAffectedRows=true" : url, user, "");
    }
}

package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store and fences that create their missing tables log no SQL error: on its first start an application with
 * {@code create-table} finds its tables missing by design, and Hibernate's {@code SqlExceptionHelper} used to log
 * that at ERROR ("Table EXCLUSIVE_LOCK not found"), which an operator reads as a fault. Hibernate logs through JBoss
 * Logging, which these tests' class path sends to {@code java.util.logging}.
 */
class QuietTableCreationTest {

    private static final String TABLE = "exclusive_lock_quiet";
    private static final String FENCES = "exclusive_fence_quiet";
    private static final LockHolder HOLDER = new LockHolder("quiet-test", "main", "");
    private static final String HIBERNATE_SQL_ERRORS = "org.hibernate.engine.jdbc.spi.SqlExceptionHelper";

    private LoggedWarnings logged;

    static List<TestDatabase> databases() {
        return List.of(TestDatabase.H2, TestDatabase.POSTGRES, TestDatabase.MARIADB);
    }

    @BeforeEach
    void record() {
        logged = LoggedWarnings.record(HIBERNATE_SQL_ERRORS);
    }

    @AfterEach
    void stopRecording() {
        logged.close();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void missingTablesAreCreatedWithoutAnSqlErrorInTheLog(TestDatabase database) throws Exception {
        database.assumeAvailable();
        for (String table : List.of(TABLE, TABLE + "_audit", FENCES)) {
            database.dropTable(table);
        }
        try (EntityManagerFactory factory = database.open()) {
            try (JpaLockStore store =
                    JpaLockStore.builder(factory).table(TABLE).createTable(true).build()) {
                Fences fences =
                        Fences.builder(factory).table(FENCES).createTable(true).build();
                Acquisition taken = store.tryAcquire("quiet", "owner-1", HOLDER, Duration.ofSeconds(30));
                assertTrue(taken instanceof Acquisition.Acquired, "the store works on the table it created: " + taken);
                long fence = ((Acquisition.Acquired) taken).fence();
                try (EntityManager em = factory.createEntityManager()) {
                    em.getTransaction().begin();
                    assertEquals(fence, fences.claim(em, "quiet", fence));
                    em.getTransaction().commit();
                }
                assertTrue(store.release("quiet", "owner-1"));
            }
            assertNothingLogged();
        }
    }

    /**
     * The same on a JTA unit, as in a Jakarta EE server, where the store's statements go through Hibernate: the
     * demo's fences logged {@code Table "EXCLUSIVE_FENCE" not found} at ERROR at every first start on Liberty and
     * WildFly. Narayana in Java SE stands in for the server's transaction manager; the tables get new names, since
     * the in-memory database outlives this test.
     */
    @Test
    void missingTablesOfAJtaUnitAreCreatedWithoutAnSqlErrorInTheLog() throws Exception {
        TransactionManager transactions = Narayana.transactionManager();
        String suffix = Long.toHexString(System.nanoTime());
        try (EntityManagerFactory factory = Persistence.createEntityManagerFactory("exclusive-h2-jta")) {
            try (JpaLockStore store = JpaLockStore.builder(factory)
                    .table("quiet_jta_" + suffix)
                    .transactionManager(transactions)
                    .createTable(true)
                    .build()) {
                Fences.builder(factory)
                        .table("quiet_jta_fence_" + suffix)
                        .transactionManager(transactions)
                        .createTable(true)
                        .build();
                assertTrue(store.tryAcquire("quiet", "owner-1", HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("quiet", "owner-1"));
            }
            assertNothingLogged();
        }
    }

    /**
     * A store that may create its table does not create a second one beside a table that its unqualified name already
     * finds through H2's {@code SCHEMA_SEARCH_PATH}: the new table, in the current schema, would hide the old one
     * from every later statement, and JVMs that had started before would go on locking in the old one.
     */
    @Test
    void aTableFoundThroughTheSearchPathIsUsedNotCreatedAgain() throws Exception {
        String table = "quiet_path_" + Long.toHexString(System.nanoTime());
        String url = "jdbc:h2:mem:exclusive-path;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000";
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS OLD_LOCKS");
            for (String ddl : Database.H2.createTable("OLD_LOCKS." + table)) {
                statement.execute(ddl);
            }
        }
        try (EntityManagerFactory factory = TestDatabase.H2.open(
                        Map.of("jakarta.persistence.jdbc.url", url + ";SCHEMA_SEARCH_PATH=OLD_LOCKS"));
                JpaLockStore store = JpaLockStore.builder(factory)
                        .table(table)
                        .createTable(true)
                        .build()) {
            assertTrue(store.tryAcquire("path", "owner-1", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            try (Connection connection = DriverManager.getConnection(url, "sa", "");
                    Statement statement = connection.createStatement()) {
                List<String> schemas = new ArrayList<>();
                try (ResultSet tables = statement.executeQuery(
                        "SELECT TABLE_SCHEMA FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_NAME) = UPPER('" + table
                                + "')")) {
                    while (tables.next()) {
                        schemas.add(tables.getString(1));
                    }
                }
                assertEquals(List.of("OLD_LOCKS"), schemas, "the tables of that name");
                try (ResultSet held =
                        statement.executeQuery("SELECT owner FROM OLD_LOCKS." + table + " WHERE name = 'path'")) {
                    assertTrue(held.next(), "the lock is held in the table the search path finds");
                }
            }
            assertTrue(store.release("path", "owner-1"));
        }
    }

    private void assertNothingLogged() {
        assertEquals(
                List.of(), logged.messages(), "Hibernate's SQL error log while the tables were missing and created");
    }
}

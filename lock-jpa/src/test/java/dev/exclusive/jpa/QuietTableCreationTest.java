package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.transaction.TransactionManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
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

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(HIBERNATE_SQL_ERRORS);
    private final Handler recorder = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                logged.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    static List<TestDatabase> databases() {
        return List.of(TestDatabase.H2, TestDatabase.POSTGRES, TestDatabase.MARIADB);
    }

    @BeforeEach
    void record() {
        logger.addHandler(recorder);
    }

    @AfterEach
    void stopRecording() {
        logger.removeHandler(recorder);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void missingTablesAreCreatedWithoutAnSqlErrorInTheLog(TestDatabase database) throws Exception {
        database.assumeAvailable();
        for (String table : List.of(TABLE, TABLE + "_audit", FENCES)) {
            database.dropTable(table);
        }
        EntityManagerFactory factory = database.open();
        try {
            JpaLockStore store =
                    JpaLockStore.builder(factory).table(TABLE).createTable(true).build();
            Fences fences =
                    Fences.builder(factory).table(FENCES).createTable(true).build();
            try {
                Acquisition taken = store.tryAcquire("quiet", "owner-1", HOLDER, Duration.ofSeconds(30));
                assertTrue(taken instanceof Acquisition.Acquired, "the store works on the table it created: " + taken);
                long fence = ((Acquisition.Acquired) taken).fence();
                EntityManager em = factory.createEntityManager();
                try {
                    em.getTransaction().begin();
                    assertEquals(fence, fences.claim(em, "quiet", fence));
                    em.getTransaction().commit();
                } finally {
                    em.close();
                }
                assertTrue(store.release("quiet", "owner-1"));
            } finally {
                store.close();
            }
            assertNothingLogged();
        } finally {
            factory.close();
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
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
                .setObjectStoreDir(
                        Path.of("target", "narayana").toAbsolutePath().toString());
        TransactionManager transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();
        String suffix = Long.toHexString(System.nanoTime());
        String table = "quiet_jta_" + suffix;
        EntityManagerFactory factory = Persistence.createEntityManagerFactory("exclusive-h2-jta");
        try {
            JpaLockStore store = JpaLockStore.builder(factory)
                    .table(table)
                    .transactionManager(transactions)
                    .createTable(true)
                    .build();
            Fences.builder(factory)
                    .table("quiet_jta_fence_" + suffix)
                    .transactionManager(transactions)
                    .createTable(true)
                    .build();
            try {
                assertTrue(store.tryAcquire("quiet", "owner-1", HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("quiet", "owner-1"));
            } finally {
                store.close();
            }
            assertNothingLogged();
        } finally {
            factory.close();
        }
    }

    private void assertNothingLogged() {
        assertEquals(
                List.of(),
                logged.stream().map(r -> r.getLevel() + " " + r.getMessage()).toList(),
                "Hibernate's SQL error log while the tables were missing and created");
    }
}

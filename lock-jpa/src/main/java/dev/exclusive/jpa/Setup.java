package dev.exclusive.jpa;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.LocalSignals;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.persistence.PersistenceException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the store does before its first lock operation: open the persistence unit it owns, recognize the database
 * behind it, and check (or create) the lock table.
 */
final class Setup {

    private static final System.Logger LOG = System.getLogger(JpaLockStore.class.getName());

    /**
     * Waiters in this JVM are woken by a release through any store on the same database URL and table (or, when
     * the driver does not tell the URL, on the same factory).
     */
    private static final ConcurrentHashMap<String, LocalSignals> SIGNALS = new ConcurrentHashMap<>();

    /** The databases the store (and {@link Fences}) can work with, for messages. */
    static final String SUPPORTED = "PostgreSQL, MariaDB, MySQL, H2";

    /** The database behind a factory, and its JDBC URL where the driver tells it (else {@code null}). */
    record Found(Database database, String url) {}

    /** A store ready for its operations: its table, and the signals its releases send to waiters in this JVM. */
    record Ready(LockTable table, LocalSignals signals) {}

    private final Transactions transactions;
    private final String storeName;
    private final String table;
    private final String localOwners;

    /** @param localOwners what the owners of this JVM start with, for the statements */
    Setup(Transactions transactions, String storeName, String table, String localOwners) {
        this.transactions = transactions;
        this.storeName = storeName;
        this.table = table;
        this.localOwners = localOwners;
    }

    /**
     * Opens a persistence unit by name, with the store's timeout as the default query timeout.
     *
     * @throws LockStoreUnavailableException if the unit opens but cannot reach its database
     * @throws LockConfigurationException    if the unit cannot be found or opened
     */
    static EntityManagerFactory openFactory(
            String storeName, String persistenceUnit, Map<String, Object> overrides, long timeoutMillis) {
        Map<String, Object> properties = new HashMap<>(overrides);
        properties.putIfAbsent("jakarta.persistence.query.timeout", (int) Math.max(1_000, timeoutMillis));
        try {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(persistenceUnit, properties);
            if (factory == null) {
                throw new PersistenceException("no persistence provider answered");
            }
            return factory;
        } catch (PersistenceException e) {
            if (Failures.sqlCause(e) != null) {
                throw new LockStoreUnavailableException(
                        "Store '" + storeName + "': persistence unit '" + persistenceUnit
                                + "' cannot reach its database: "
                                + Failures.sqlCause(e).getMessage(),
                        null,
                        storeName,
                        e);
            }
            throw new LockConfigurationException(
                    "Store '" + storeName + "': cannot open persistence unit '" + persistenceUnit + "' ("
                            + e.getMessage() + "); set exclusive.store." + storeName
                            + ".persistence-unit to a unit in META-INF/persistence.xml that lists dev.exclusive.jpa.LockRow",
                    storeName,
                    "persistence-unit",
                    e);
        }
    }

    /**
     * Recognizes the database, then checks (or creates) the table.
     *
     * @param create whether to create the table when it is missing
     * @throws LockStoreUnavailableException if the database or the table cannot be reached
     * @throws LockConfigurationException    if the database is not one the store supports
     */
    Ready run(boolean create, EntityManagerFactory factory) {
        Found found;
        try {
            found = recognize();
        } catch (PersistenceException e) {
            throw Failures.unavailable(storeName, "the database", null, e);
        }
        Statements statements = new Statements(found.database(), table, localOwners, true);
        prepareTable(statements, create);
        if (statements.marks && !markColumn(statements, create)) {
            statements = new Statements(found.database(), table, localOwners, false);
        }
        LocalSignals signals = SIGNALS.computeIfAbsent(
                (found.url() == null ? "factory@" + System.identityHashCode(factory) : found.url()) + "|"
                        + table.toLowerCase(Locale.ROOT),
                key -> new LocalSignals());
        return new Ready(new LockTable(statements, transactions, storeName), signals);
    }

    /**
     * @throws PersistenceException       if the database cannot be asked
     * @throws LockConfigurationException if it is not one the store supports
     */
    private Found recognize() {
        String[] product = describe(transactions);
        Database database = Database.recognize(product[0], product[1]);
        if (database == null) {
            throw new LockConfigurationException(
                    "Store '" + storeName + "': database '" + product[0] + " " + product[1]
                            + "' is not supported; supported: " + SUPPORTED,
                    storeName,
                    "persistence-unit",
                    null);
        }
        return new Found(database, product[2]);
    }

    /**
     * @return the product name, product version and JDBC URL ({@code null} when the driver does not tell it) of the
     *         database behind {@code transactions}, for {@link Database#recognize}
     * @throws PersistenceException if the database cannot be asked
     */
    static String[] describe(Transactions transactions) {
        String[] product = transactions.run(Setup::metaData);
        return product != null ? product : probeVersion(transactions);
    }

    /**
     * The JDBC metadata of the store's connection: through {@code unwrap(Connection.class)} where the provider
     * allows it (EclipseLink), through Hibernate's {@code Session.doReturningWork} (reflectively, so that Hibernate
     * is not needed at compile time), else {@code null}.
     */
    private static String[] metaData(EntityManager em) {
        Connection connection;
        try {
            connection = em.unwrap(Connection.class);
        } catch (RuntimeException notThisProvider) {
            connection = null;
        }
        try {
            if (connection != null) {
                return describe(connection);
            }
            ClassLoader loader = em.getClass().getClassLoader();
            Class<?> sessionType = Class.forName("org.hibernate.Session", false, loader);
            Class<?> workType = Class.forName("org.hibernate.jdbc.ReturningWork", false, loader);
            Object work = Proxy.newProxyInstance(loader, new Class<?>[] {workType}, (proxy, method, args) -> {
                if (method.getName().equals("execute")) {
                    return describe((Connection) args[0]);
                }
                return method.getName().equals("hashCode")
                        ? System.identityHashCode(proxy)
                        : method.getName().equals("equals") ? proxy == args[0] : "ReturningWork";
            });
            return (String[]) sessionType.getMethod("doReturningWork", workType).invoke(em.unwrap(sessionType), work);
        } catch (SQLException e) {
            throw new PersistenceException(e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new PersistenceException(e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not Hibernate, or not one we know: ask the database instead
        }
    }

    private static String[] describe(Connection connection) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        return new String[] {metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion(), metaData.getURL()
        };
    }

    /** Without JDBC metadata: {@code version()} answers on PostgreSQL, MariaDB and MySQL, {@code H2VERSION()} on H2. */
    private static String[] probeVersion(Transactions transactions) {
        try {
            Object version = transactions.run(
                    em -> transactions.query(em, "SELECT version()").getSingleResult());
            return new String[] {String.valueOf(version), "", null};
        } catch (PersistenceException notThere) {
            Object version = transactions.run(
                    em -> transactions.query(em, "SELECT H2VERSION()").getSingleResult());
            return new String[] {"H2", String.valueOf(version), null};
        }
    }

    /**
     * Checks that the table answers; creates it first when it is missing and {@code create} is set.
     *
     * @throws LockStoreUnavailableException if the table cannot be read (naming the fix when it is missing)
     */
    private void prepareTable(Statements statements, boolean create) {
        Database database = statements.database;
        transactions.prepareTable(
                statements.probe,
                database.listed(table),
                create ? database.createTable(table) : null,
                missing -> new LockStoreUnavailableException(
                        "Store '" + storeName + "': cannot read table '" + table + "' on " + database + " ("
                                + missing.getMessage() + "); create it with the DDL in the JpaLockStore javadoc, or"
                                + " set exclusive.store." + storeName + ".create-table=true",
                        null,
                        storeName,
                        missing),
                e -> Failures.unavailable(storeName, "the database", null, e));
        checkNameColumn(database);
        dropObsoleteIndex(database, create); // finds none on a table just created
    }

    /**
     * A table of an earlier version keeps working with its {@code expires_at} index, only slower (PostgreSQL: no HOT
     * update; MariaDB and MySQL: an index entry rewritten by every acquire and release). A store allowed to create the
     * table drops it, saying so at INFO; otherwise a WARNING names the statement that does. A failure to drop it (no
     * privilege, a lock timeout) is the same WARNING; a failure to look for it only a DEBUG line, since nothing is
     * known about the index then.
     */
    private void dropObsoleteIndex(Database database, boolean create) {
        String query = database.obsoleteIndex(table);
        if (query == null) {
            return;
        }
        String drop = database.dropObsoleteIndex(table);
        Object found;
        try {
            found = transactions.run(em -> transactions.query(em, query).getSingleResult());
        } catch (PersistenceException e) {
            LOG.log(System.Logger.Level.DEBUG, "Checking the lock table''s indexes failed: {0}", e);
            return;
        }
        if (((Number) found).intValue() == 0) {
            return;
        }
        if (create) {
            try {
                transactions.run(em -> transactions.query(em, drop).executeUpdate());
                LOG.log(
                        System.Logger.Level.INFO,
                        "Store ''{0}'': dropped the index on expires_at of table {1}, which an earlier version"
                                + " created: without it an acquire or release writes the row alone, no index entry;"
                                + " the cleanup scans the table instead ({2})",
                        storeName,
                        table,
                        drop);
                return;
            } catch (PersistenceException e) {
                LOG.log(System.Logger.Level.DEBUG, "Dropping the index on expires_at failed: {0}", e);
            }
        }
        LOG.log(
                System.Logger.Level.WARNING,
                "Store ''{0}'': table {1} has the index on expires_at of an earlier version, which makes every acquire"
                        + " and release write index entries; the store works with it, faster without: {2} (or set"
                        + " create-table=true and the store drops it)",
                storeName,
                table,
                drop);
    }

    /**
     * A table of an earlier version (PostgreSQL) lacks {@code waited_until}, where waiters of other JVMs mark a lock
     * so that its release notifies. A store allowed to create the table adds it (a nullable column without an
     * index, which PostgreSQL adds without rewriting the table), saying so at INFO; otherwise, or when that fails
     * (no privilege, a lock timeout), a WARNING names the statement, and every release notifies, as in earlier
     * versions.
     *
     * @return whether the table has the column now
     */
    private boolean markColumn(Statements statements, boolean create) {
        if (hasMarkColumn(statements)) {
            return true;
        }
        if (create) {
            try {
                transactions.run(
                        em -> transactions.query(em, statements.addMarkColumn).executeUpdate());
            } catch (PersistenceException e) {
                LOG.log(System.Logger.Level.DEBUG, "Adding waited_until to the lock table failed: {0}", e);
            }
            if (hasMarkColumn(statements)) {
                LOG.log(
                        System.Logger.Level.INFO,
                        "Store ''{0}'': added column waited_until to table {1}, where waiters in other JVMs mark a"
                                + " lock so that only its release notifies them ({2})",
                        storeName,
                        table,
                        statements.addMarkColumn);
                return true;
            }
        }
        LOG.log(
                System.Logger.Level.WARNING,
                "Store ''{0}'': table {1} has no column waited_until, so every release notifies every JVM (a"
                        + " notification costs each release a global lock at commit); add it: {2} (or set"
                        + " create-table=true and the store adds it)",
                storeName,
                table,
                statements.addMarkColumn);
        return false;
    }

    /** @return whether the lock table has {@code waited_until}; {@code false} if the catalog cannot be asked */
    private boolean hasMarkColumn(Statements statements) {
        try {
            Object found = transactions.run(
                    em -> transactions.query(em, statements.markProbe).getSingleResult());
            return ((Number) found).intValue() > 0;
        } catch (PersistenceException e) {
            return false;
        }
    }

    /**
     * Refuses a name column that compares inexactly (a case-insensitive, pad-space or nondeterministic collation, as
     * in a table made by hand or generated from {@link LockRow}): it would make different lock names one row. A
     * database that does not answer the question is left alone.
     *
     * @throws LockConfigurationException naming the column's collation and the statement that fixes it
     */
    private void checkNameColumn(Database database) {
        List<?> answer;
        try {
            answer = transactions.run(
                    em -> transactions.query(em, database.nameComparison(table)).getResultList());
        } catch (PersistenceException e) {
            LOG.log(System.Logger.Level.DEBUG, "Cannot read how the lock table compares names: {0}", e);
            return;
        }
        if (answer.isEmpty() || ((Number) ((Object[]) answer.get(0))[1]).intValue() == 1) {
            return;
        }
        throw new LockConfigurationException(
                "Store '" + storeName + "': column name of table '" + table + "' on " + database + " compares with "
                        + ((Object[]) answer.get(0))[0] + ", under which two different lock names can be one row"
                        + " (by case, trailing spaces or accents); make it compare exactly: "
                        + database.exactNameColumn(table)
                        + " (see the DDL in DDL.md)",
                storeName,
                "table",
                null);
    }
}

package dev.exclusive.jpa;

import dev.exclusive.LockConfigurationException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Runs the store's work on its own, each piece committed before it returns and never the caller's: a single
 * statement in autocommit on a connection of the unit ({@link Connections}) where the unit is a
 * {@code RESOURCE_LOCAL} one on Hibernate; otherwise an {@link EntityTransaction} on a {@code RESOURCE_LOCAL}
 * factory, or, on a JTA factory, a JTA transaction begun after suspending the caller's (which is resumed
 * afterwards). Every statement and JTA transaction is bounded by the store's timeout.
 */
final class Transactions {

    private static final String QUERY_TIMEOUT = "jakarta.persistence.query.timeout";
    private static final String HIBERNATE_COORDINATOR = "hibernate.transaction.coordinator_class";
    private static final List<String> TRANSACTION_MANAGER_NAMES = List.of(
            "java:comp/TransactionManager",
            "java:appserver/TransactionManager",
            "java:/TransactionManager",
            "java:pm/TransactionManager");

    /** What a transaction of the store does with its entity manager. */
    @FunctionalInterface
    interface Work<T> {
        T run(EntityManager em);
    }

    private final EntityManagerFactory factory;
    private final String storeName;
    private final String subject;
    private final String builder;
    private final int timeoutMillis;
    private final boolean jta;
    private final Connections connections;
    private volatile TransactionManager transactionManager;
    private volatile boolean closed;

    /**
     * @param timeoutMillis the longest a statement may run (at least one second is used, the JDBC granularity)
     * @param manager       the server's transaction manager, or {@code null} to look it up in JNDI when needed
     */
    Transactions(EntityManagerFactory factory, String storeName, long timeoutMillis, TransactionManager manager) {
        this(factory, storeName, "Store '" + storeName + "'", "JpaLockStore", timeoutMillis, manager);
    }

    /**
     * @param storeName the store's name, or {@code null} for work that is not a store's
     * @param subject   who runs the work, for messages ({@code Store 'jpa'})
     * @param builder   the class whose builder takes a transaction manager, for messages
     */
    Transactions(
            EntityManagerFactory factory,
            String storeName,
            String subject,
            String builder,
            long timeoutMillis,
            TransactionManager manager) {
        this.factory = factory;
        this.storeName = storeName;
        this.subject = subject;
        this.builder = builder;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1_000, timeoutMillis));
        this.transactionManager = manager;
        this.jta = isJta(factory);
        this.connections = jta ? null : Connections.of(factory, timeoutMillis);
    }

    /**
     * @return the unit's connections, for work that needs one of its own (a listening connection), or {@code null}
     *         when statements go through Jakarta Persistence transactions
     */
    Connections connections() {
        return connections;
    }

    /**
     * Runs one statement on its own, in autocommit where the unit allows it, else in a transaction of its own.
     *
     * @param sql       native SQL with ordinal parameters {@code ?1}, {@code ?2}, ...
     * @param arguments the parameters' values, {@code arguments[0]} for {@code ?1}
     * @return the rows it answers, each as an array of its columns
     * @throws PersistenceException  if the statement fails
     * @throws IllegalStateException if the store is closed
     */
    List<Object[]> rows(String sql, Object... arguments) {
        if (connections != null) {
            requireOpen();
            return connections.run(connection -> connections.rows(connection, sql, arguments));
        }
        return run(em -> {
            List<?> found = bind(query(em, sql), sql, arguments).getResultList();
            List<Object[]> rows = new ArrayList<>(found.size());
            for (Object row : found) {
                rows.add(row instanceof Object[] columns ? columns : new Object[] {row});
            }
            return rows;
        });
    }

    /**
     * Runs one changing statement on its own, as {@link #rows} does.
     *
     * @return how many rows it changed
     * @throws PersistenceException  if the statement fails
     * @throws IllegalStateException if the store is closed
     */
    int update(String sql, Object... arguments) {
        if (connections != null) {
            requireOpen();
            return connections.run(connection -> connections.update(connection, sql, arguments));
        }
        return run(em -> bind(query(em, sql), sql, arguments).executeUpdate());
    }

    /**
     * Makes sure a table answers its probe, creating it first when {@code ddl} is given and the catalog does not list
     * it; when the probe still fails and {@code ddl} is given, creates it and probes again. Every statement is a
     * single one ({@link #rows}, {@link #update}), and a missing table is first looked up in the catalog rather than
     * probed: on a JTA unit the statements go through Hibernate, which logs a failing one as an SQL error, and a table
     * missing on a first start is no fault. A DDL statement that fails is logged at DEBUG, and the probe after it
     * decides: another process may be creating the table at the same moment.
     *
     * @param probe      a cheap query that fails when the table is missing
     * @param listed     a catalog query answering 1 when the table exists ({@link Database#listed})
     * @param ddl        the statements that create it, or {@code null} when it may not be created
     * @param missing    what to throw when it cannot be read and may not be created
     * @param unreadable what to throw when it still cannot be read after the DDL
     */
    void prepareTable(
            String probe,
            String listed,
            List<String> ddl,
            Function<PersistenceException, RuntimeException> missing,
            Function<PersistenceException, RuntimeException> unreadable) {
        if (ddl != null && !listed(listed)) {
            create(ddl);
        }
        try {
            rows(probe);
            return;
        } catch (PersistenceException e) {
            if (ddl == null) {
                throw missing.apply(e);
            }
        }
        create(ddl); // the catalog listed a table that does not answer (another schema, another case)
        try {
            rows(probe);
        } catch (PersistenceException e) {
            throw unreadable.apply(e);
        }
    }

    /** @return whether the catalog lists the table; {@code true} when it cannot tell, so that the probe decides */
    private boolean listed(String query) {
        try {
            List<Object[]> answer = rows(query);
            return answer.isEmpty() || ((Number) answer.get(0)[0]).intValue() != 0;
        } catch (PersistenceException e) {
            return true;
        }
    }

    private void create(List<String> ddl) {
        for (String statement : ddl) {
            try {
                update(statement);
            } catch (PersistenceException e) {
                System.getLogger(Transactions.class.getName())
                        .log(System.Logger.Level.DEBUG, "Creating a table failed ({0}): {1}", statement, e);
            }
        }
    }

    private static Query bind(Query query, String sql, Object[] arguments) {
        for (int argument : Connections.toJdbc(sql).arguments()) {
            query.setParameter(argument + 1, arguments[argument]);
        }
        return query;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException(subject + " is closed");
        }
    }

    /**
     * Marks the caller's transaction, the one {@code callers} is joined to, rollback-only: its
     * {@link EntityTransaction} on a {@code RESOURCE_LOCAL} factory, else the thread's JTA transaction.
     *
     * @throws PersistenceException if the transaction manager cannot mark it
     */
    void setRollbackOnly(EntityManager callers) {
        if (!jta) {
            callers.getTransaction().setRollbackOnly();
            return;
        }
        try {
            transactionManager().setRollbackOnly();
        } catch (SystemException | IllegalStateException e) {
            throw new PersistenceException("Cannot mark the caller's JTA transaction rollback-only: " + e, e);
        }
    }

    /** Makes every later {@link #run} fail with {@link IllegalStateException}. */
    void close() {
        closed = true;
    }

    /** @return a native query bounded by the store's timeout */
    Query query(EntityManager em, String statement) {
        return em.createNativeQuery(statement).setHint(QUERY_TIMEOUT, timeoutMillis);
    }

    /**
     * Runs {@code work} in a transaction of its own, committed before this returns; never the caller's.
     *
     * @throws PersistenceException  if the work or its transaction fails (rolled back)
     * @throws IllegalStateException if the store is closed
     */
    <T> T run(Work<T> work) {
        requireOpen();
        return jta ? inJtaTransaction(work) : inLocalTransaction(work);
    }

    private <T> T inLocalTransaction(Work<T> work) {
        EntityManager em = factory.createEntityManager();
        try {
            EntityTransaction transaction = em.getTransaction();
            transaction.begin();
            try {
                T result = work.run(em);
                transaction.commit();
                return result;
            } catch (RuntimeException e) {
                rollBack(transaction, e);
                throw e;
            }
        } finally {
            em.close();
        }
    }

    private static void rollBack(EntityTransaction transaction, RuntimeException failure) {
        try {
            if (transaction.isActive()) {
                transaction.rollback();
            }
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The caller's JTA transaction is suspended, so the store's work commits (or not) on its own and the caller's
     * transaction continues unaffected afterwards.
     */
    private <T> T inJtaTransaction(Work<T> work) {
        TransactionManager manager = transactionManager();
        Transaction callers;
        try {
            callers = manager.suspend();
        } catch (SystemException e) {
            throw new PersistenceException("Cannot suspend the caller's transaction", e);
        }
        try {
            return inOwnJtaTransaction(manager, work);
        } finally {
            if (callers != null) {
                try {
                    manager.resume(callers);
                } catch (Exception e) {
                    throw new PersistenceException("Cannot resume the caller's transaction", e);
                }
            }
        }
    }

    /** Runs {@code work} in a new JTA transaction on a thread that has none; the thread has none afterwards either. */
    private <T> T inOwnJtaTransaction(TransactionManager manager, Work<T> work) {
        try {
            begin(manager);
            T result;
            try {
                EntityManager em = factory.createEntityManager();
                try {
                    em.joinTransaction();
                    result = work.run(em);
                } finally {
                    em.close();
                }
            } catch (RuntimeException e) {
                rollBack(manager, e);
                throw e;
            }
            manager.commit();
            return result;
        } catch (PersistenceException e) {
            throw e;
        } catch (Exception e) {
            rollBack(manager, e);
            throw new PersistenceException("The store's own JTA transaction failed: " + e, e);
        }
    }

    /**
     * Begins a transaction bounded by the store's timeout. The timeout is a setting of the thread, not of the
     * transaction, so it is set back to 0 (the server's default) right after: the thread may be a pooled one whose
     * next container transaction must not inherit the store's few seconds.
     */
    private void begin(TransactionManager manager) throws NotSupportedException, SystemException {
        manager.setTransactionTimeout((int) ((timeoutMillis + 999L) / 1000));
        try {
            manager.begin();
        } finally {
            manager.setTransactionTimeout(0);
        }
    }

    /** Rolls back the store's transaction if it is still on the thread. */
    private static void rollBack(TransactionManager manager, Exception failure) {
        try {
            if (manager.getTransaction() != null) {
                manager.rollback();
            }
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    private TransactionManager transactionManager() {
        TransactionManager manager = transactionManager;
        if (manager == null) {
            for (String jndiName : TRANSACTION_MANAGER_NAMES) {
                try {
                    manager = (TransactionManager) new InitialContext().lookup(jndiName);
                    break;
                } catch (NamingException | ClassCastException e) {
                    // try the next well-known name
                }
            }
            if (manager == null) {
                throw new LockConfigurationException(
                        subject + " uses a JTA persistence unit but no "
                                + "TransactionManager was found at " + TRANSACTION_MANAGER_NAMES
                                + "; use a RESOURCE_LOCAL "
                                + "persistence unit over a non-JTA data source, or pass the TransactionManager to "
                                + builder + ".builder(...).transactionManager(...)",
                        storeName,
                        "persistence-unit",
                        null);
            }
            transactionManager = manager;
        }
        return manager;
    }

    /**
     * Whether the factory's unit is JTA. JPA says a JTA entity manager refuses {@code getTransaction()}, and
     * EclipseLink does; Hibernate hands one out unless {@code hibernate.jpa.compliance.transaction} is set, and that
     * {@code EntityTransaction} would join the caller's JTA transaction. So Hibernate's transaction coordinator,
     * which it derives from the unit's transaction type, is asked first.
     */
    private static boolean isJta(EntityManagerFactory factory) {
        Object coordinator = factory.getProperties().get(HIBERNATE_COORDINATOR);
        if (coordinator != null) {
            String name = coordinator instanceof Class<?> type ? type.getName() : coordinator.toString();
            return name.toLowerCase(Locale.ROOT).contains("jta");
        }
        EntityManager em = factory.createEntityManager();
        try {
            em.getTransaction();
            return false;
        } catch (IllegalStateException e) {
            return true;
        } finally {
            em.close();
        }
    }
}

package dev.exclusive.jpa;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.Persistence;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.PessimisticLockException;
import jakarta.persistence.Query;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Locks in a database table shared by every server connected to it, through Jakarta Persistence.
 *
 * <p><b>Table.</b> One row per lock name ever acquired (default table {@code exclusive_lock}, see
 * {@link LockRow} and the DDL below): {@code name} (primary key), {@code owner} ({@code NULL} while free),
 * {@code holder} ({@link LockHolder#encode()}), {@code acquired_at}, {@code expires_at} and {@code fence}. A
 * row is <em>live</em> while {@code owner IS NOT NULL AND expires_at > now}, where {@code now} is always the
 * database's clock.
 *
 * <p><b>Acquire</b>, step by step (the same on every database; {@code RETURNING} saves the read-backs on
 * PostgreSQL):
 * <ol>
 * <li>Take over: {@code UPDATE ... SET owner = ?, holder = ?, acquired_at = now, expires_at = now + ttl,
 * fence = fence + 1 WHERE name = ? AND (owner IS NULL OR expires_at <= now)}. One row updated is the lease;
 * fence and times are read back in the same transaction ({@code RETURNING} on PostgreSQL, a {@code SELECT}
 * elsewhere) and committed. On MariaDB, MySQL and H2 the transaction ends here either way.</li>
 * <li>Zero rows: {@code SELECT expires_at - now ... WHERE name = ? AND owner IS NOT NULL AND expires_at > now}.
 * A live row answers busy with that remaining time, computed by the database.</li>
 * <li>No live row either: the name has no row yet, so insert its first row with fence 1 (PostgreSQL
 * {@code INSERT ... ON CONFLICT (name) DO NOTHING RETURNING}, MariaDB/MySQL {@code INSERT IGNORE}, H2
 * {@code MERGE ... WHEN NOT MATCHED THEN INSERT}). One row inserted is the lease; none (another inserter won, or
 * the row was freed a moment ago) answers busy with zero remaining, so a waiter retries at once.</li>
 * </ol>
 * <b>Why it is atomic:</b> the decision (free or expired?) and the change are one single-row statement, which
 * the database runs under the row's write lock: of two acquirers of one name, the second waits for the first
 * one's commit, re-evaluates the condition on the committed row and matches nothing. The primary key makes the
 * first insert of a name succeed once. <b>Why deadlock-free:</b> each transaction writes at most one row, so no
 * transaction holds a lock while it waits for another; a busy attempt takes no lock at all on PostgreSQL (an
 * {@code UPDATE} locks only matching rows, {@code DO NOTHING} none), and on MariaDB the take-over commits before
 * the insert, so its gap lock never meets another transaction's insert. Should the database still report a
 * deadlock, a serialization failure or a lock-wait timeout, the attempt is retried twice and then answered as busy;
 * a unique-key race is answered as busy. None of them reaches the caller.
 *
 * <p><b>Release</b>: {@code UPDATE ... SET owner = NULL, expires_at = now WHERE name = ? AND owner = ? AND
 * live}; <b>force-release</b> the same without the owner; <b>extend</b>: {@code UPDATE ... SET expires_at =
 * now + ttl WHERE name = ? AND owner = ? AND live}. Each is one statement in its own transaction, so it is atomic
 * for the same reason. A release wakes waiters in this JVM at once ({@link LocalSignals}, shared by every store on
 * the same database URL and table); waiters elsewhere poll with a jittered backoff ({@link #waitPolicy()},
 * bounded by their wait and by the holder's remaining time, which the database computed).
 *
 * <p><b>Clock.</b> Every expiry is decided by the database server's clock inside the statements
 * ({@code CURRENT_TIMESTAMP} on PostgreSQL and H2, {@code UTC_TIMESTAMP(6)} on MariaDB/MySQL, so the session time
 * zone does not matter). Times reach the JVM as epoch milliseconds and remaining times as milliseconds, both
 * computed by the database: a server whose clock is minutes off neither steals a live lock nor keeps a dead one.
 * The {@link Builder#clock(Clock) clock} of this JVM only paces the opportunistic cleanup.
 *
 * <p><b>Fences.</b> A row is never deleted by acquire, release or expiry; the fence only ever grows by one per
 * acquisition ({@code fence + 1} in the same statement that takes the row), so fences strictly increase per
 * name. {@link #cleanUp()} deletes rows whose lease ended more than {@link Builder#retention retention} ago
 * (default 7 days); it runs by itself at most every quarter of the retention (between one minute and one hour),
 * after an acquisition. The next acquisition of a deleted name starts again at fence 1, so fences are strictly
 * increasing across any gap shorter than the retention: keep the retention longer than any holder could still be
 * writing with an old fence.
 *
 * <p><b>Transactions.</b> The store never joins the caller's transaction: each operation commits on its own
 * before returning, so an acquired lock is visible to every server before the caller's work runs. With a
 * {@code RESOURCE_LOCAL} factory (the recommended set-up, in Java SE and on a server) it uses
 * {@link EntityManager#getTransaction()}. With a JTA factory it suspends the caller's transaction through the
 * {@link TransactionManager} (given to the builder, or looked up at {@code java:comp/TransactionManager},
 * {@code java:appserver/TransactionManager}, {@code java:/TransactionManager}), runs its own, and resumes the
 * caller's.
 *
 * <p><b>Persistence unit.</b> The application owns it; it lists {@link LockRow} (with
 * {@code exclude-unlisted-classes}), is {@code RESOURCE_LOCAL} over a non-JTA data source (or JDBC URL), and
 * sets the driver's connect and socket timeouts so that a database that is down is reported within the store's
 * timeout (PostgreSQL {@code connectTimeout}, {@code socketTimeout}, {@code loginTimeout}; MariaDB
 * {@code connectTimeout}, {@code socketTimeout}). The store sets {@code jakarta.persistence.query.timeout} on each
 * of its statements (at least one second, the JDBC granularity). Hibernate's bytecode enhancement is not needed.
 *
 * <p><b>Failures.</b> Any other persistence or JDBC failure becomes a {@link LockStoreUnavailableException}
 * carrying the cause. An acquisition whose commit outcome is unknown leaves at most a lease that expires at its
 * ttl.
 *
 * <p><b>DDL</b> (PostgreSQL; MariaDB/MySQL and H2 in {@code DDL.md}; created on first use with
 * {@link Builder#createTable(boolean) createTable(true)}):
 * <pre>
 * CREATE TABLE exclusive_lock (
 *     name        VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
 *     owner       VARCHAR(255),
 *     holder      VARCHAR(1000),
 *     acquired_at TIMESTAMP WITH TIME ZONE NOT NULL,
 *     expires_at  TIMESTAMP WITH TIME ZONE NOT NULL,
 *     fence       BIGINT NOT NULL
 * );
 * CREATE INDEX exclusive_lock_expires_at ON exclusive_lock (expires_at);
 * </pre>
 *
 * <p>Thread-safe. Supported databases: PostgreSQL, MariaDB, MySQL 8, H2 2.x; another database fails its first
 * operation with a {@link LockConfigurationException}.
 */
public final class JpaLockStore implements LockStore {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "exclusive_lock";

    private static final System.Logger LOG = System.getLogger(JpaLockStore.class.getName());
    private static final Pattern TABLE =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
    private static final ConcurrentHashMap<String, LocalSignals> SIGNALS = new ConcurrentHashMap<>();
    private static final String QUERY_TIMEOUT = "jakarta.persistence.query.timeout";
    private static final int ATTEMPTS = 3;
    private static final List<String> TRANSACTION_MANAGER_NAMES = List.of(
            "java:comp/TransactionManager",
            "java:appserver/TransactionManager",
            "java:/TransactionManager",
            "java:pm/TransactionManager");

    private final EntityManagerFactory factory;
    private final boolean ownsFactory;
    private final String storeName;
    private final String table;
    private final boolean createTable;
    private final Duration retention;
    private final WaitPolicy waitPolicy;
    private final int queryTimeoutMillis;
    private final Clock clock;
    private final boolean jta;
    private volatile TransactionManager transactionManager;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong nextCleanUp;
    private final long cleanUpEveryMillis;
    private final Object initLock = new Object();
    private volatile Statements sql;
    private volatile LocalSignals signals;

    /** What a transaction of the store does with its entity manager. */
    @FunctionalInterface
    private interface Work<T> {
        T run(EntityManager em);
    }

    /**
     * A store with default settings over a factory the application owns and closes.
     *
     * @param factory a factory whose persistence unit reaches the lock table
     */
    public JpaLockStore(EntityManagerFactory factory) {
        this(builder(factory));
    }

    private JpaLockStore(Builder builder) {
        this.storeName = builder.storeName;
        this.table = builder.table;
        this.createTable = builder.createTable;
        this.retention = builder.retention;
        this.waitPolicy = WaitPolicy.backoff(builder.minBackoff, builder.maxBackoff);
        this.queryTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1_000, builder.timeout.toMillis()));
        this.clock = builder.clock;
        this.transactionManager = builder.transactionManager;
        this.cleanUpEveryMillis = Math.max(60_000, Math.min(3_600_000, retention.toMillis() / 4));
        this.nextCleanUp = new AtomicLong(clock.millis() + cleanUpEveryMillis);
        if (builder.factory != null) {
            this.factory = builder.factory;
            this.ownsFactory = false;
        } else {
            this.factory = openFactory(builder);
            this.ownsFactory = true;
        }
        this.jta = isJta(factory);
    }

    /**
     * A store over a persistence unit that the store opens and closes.
     *
     * @param persistenceUnit the persistence unit's name
     * @return a store with default settings
     * @throws LockConfigurationException if the unit cannot be found or opened
     */
    public static JpaLockStore create(String persistenceUnit) {
        return builder(persistenceUnit).build();
    }

    /**
     * @param factory a factory the application owns: the store never closes it
     * @return a builder of a store over it
     */
    public static Builder builder(EntityManagerFactory factory) {
        return new Builder(Objects.requireNonNull(factory, "factory"), null);
    }

    /**
     * @param persistenceUnit the name of a persistence unit the store opens at {@link Builder#build()} and closes
     *                        with {@link #close()}
     * @return a builder of a store over it
     */
    public static Builder builder(String persistenceUnit) {
        return new Builder(null, Objects.requireNonNull(persistenceUnit, "persistenceUnit"));
    }

    /** @return the table the store uses */
    public String table() {
        return table;
    }

    // ---------------------------------------------------------------- operations

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        Statements statements = statements();
        long ttlMillis = ttl.toMillis();
        String encoded = holder.encode();
        for (int attempt = 1; ; attempt++) {
            try {
                Acquisition outcome = acquire(statements, name, owner, encoded, ttlMillis);
                if (outcome.acquired()) {
                    cleanUpIfDue();
                }
                return outcome;
            } catch (PersistenceException e) {
                if (!isContention(e)) {
                    throw unavailable(name, e);
                }
                if (attempt == ATTEMPTS) {
                    return Acquisition.Busy.unknown();
                }
            }
        }
    }

    /**
     * Take-over, then (only when the row is neither live nor taken over) the first insert. The take-over commits
     * on its own where the database would keep a lock after a non-matching update (InnoDB's gap lock), so no
     * transaction ever holds a lock while it waits for another.
     */
    private Acquisition acquire(Statements statements, String name, String owner, String holder, long ttlMillis) {
        boolean returning = statements.database.returning();
        Acquisition taken = inTransaction(em -> {
            if (returning) {
                List<?> rows = query(em, statements.takeOverReturning)
                        .setParameter(1, owner)
                        .setParameter(2, holder)
                        .setParameter(3, ttlMillis)
                        .setParameter(4, name)
                        .getResultList();
                return rows.isEmpty()
                        ? busyOrInsert(em, statements, name, owner, holder, ttlMillis)
                        : lease((Object[]) rows.get(0));
            }
            int updated = query(em, statements.takeOver)
                    .setParameter(1, owner)
                    .setParameter(2, holder)
                    .setParameter(3, ttlMillis)
                    .setParameter(4, name)
                    .executeUpdate();
            return updated == 1 ? readLease(em, statements, name) : null;
        });
        if (taken != null) {
            return taken;
        }
        try {
            return inTransaction(em -> busyOrInsert(em, statements, name, owner, holder, ttlMillis));
        } catch (PersistenceException e) {
            if (!isDuplicateKey(e)) {
                throw e;
            }
            return new Acquisition.Busy(Duration.ZERO); // another inserter won just now; its lease is fresh
        }
    }

    /** A live row answers busy with its remaining time; no row at all is inserted with fence 1. */
    private Acquisition busyOrInsert(
            EntityManager em, Statements statements, String name, String owner, String holder, long ttlMillis) {
        List<?> remaining =
                query(em, statements.readRemaining).setParameter(1, name).getResultList();
        if (!remaining.isEmpty()) {
            return new Acquisition.Busy(Duration.ofMillis(Math.max(0, number(remaining.get(0)))));
        }
        Query insert = query(em, statements.insert)
                .setParameter(1, name)
                .setParameter(2, owner)
                .setParameter(3, holder)
                .setParameter(4, ttlMillis);
        if (statements.database.returning()) {
            List<?> rows = insert.getResultList();
            return rows.isEmpty() ? new Acquisition.Busy(Duration.ZERO) : lease((Object[]) rows.get(0));
        }
        // 0 rows: the row exists but was freed since the take-over, or another inserter won; the caller retries
        return insert.executeUpdate() == 1 ? readLease(em, statements, name) : new Acquisition.Busy(Duration.ZERO);
    }

    private Acquisition readLease(EntityManager em, Statements statements, String name) {
        return lease(
                (Object[]) query(em, statements.readLease).setParameter(1, name).getSingleResult());
    }

    private static Acquisition lease(Object[] row) {
        return new Acquisition.Acquired(
                number(row[0]), Instant.ofEpochMilli(number(row[1])), Instant.ofEpochMilli(number(row[2])));
    }

    @Override
    public boolean release(String name, String owner) {
        Statements statements = statements();
        boolean released = change(
                        name,
                        em -> query(em, statements.release)
                                .setParameter(1, name)
                                .setParameter(2, owner)
                                .executeUpdate())
                == 1;
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean forceRelease(String name) {
        Statements statements = statements();
        boolean released = change(
                        name,
                        em -> query(em, statements.forceRelease)
                                .setParameter(1, name)
                                .executeUpdate())
                == 1;
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        Statements statements = statements();
        return change(
                        name,
                        em -> query(em, statements.extend)
                                .setParameter(1, ttl.toMillis())
                                .setParameter(2, name)
                                .setParameter(3, owner)
                                .executeUpdate())
                == 1;
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        Statements statements = statements();
        List<?> rows = read(
                name, em -> query(em, statements.inspect).setParameter(1, name).getResultList());
        return rows.isEmpty() ? Optional.empty() : Optional.of(entry((Object[]) rows.get(0)));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        Statements statements = statements();
        List<?> rows = read(
                null,
                em -> query(em, statements.list + limit)
                        .setParameter(1, Statements.prefixPattern(prefix))
                        .getResultList());
        List<LockEntry> entries = new ArrayList<>(rows.size());
        for (Object row : rows) {
            entries.add(entry((Object[]) row));
        }
        return entries;
    }

    /**
     * Deletes the rows of names whose last lease ended more than the retention ago (free or expired rows only;
     * a live row is never touched). Runs by itself after acquisitions at most every quarter of the retention;
     * call it to clean up on a schedule of your own.
     *
     * @return how many rows were deleted
     * @throws LockStoreUnavailableException if the database cannot be reached
     */
    public int cleanUp() {
        Statements statements = statements();
        try {
            return inTransaction(em -> query(em, statements.cleanUp)
                    .setParameter(1, -retention.toMillis())
                    .executeUpdate());
        } catch (PersistenceException e) {
            if (isContention(e)) {
                return 0; // rows in use right now; the next run takes them
            }
            throw unavailable(null, e);
        }
    }

    @Override
    public WaitPolicy waitPolicy() {
        return waitPolicy;
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        statements();
        signals.await(name, maxWait, () -> true);
    }

    @Override
    public void ping() {
        Statements statements = statements();
        read(null, em -> query(em, statements.probe).getSingleResult());
    }

    /** Closes the factory if the store opened it; a factory the application gave stays open. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && ownsFactory && factory.isOpen()) {
            factory.close();
        }
    }

    @Override
    public String toString() {
        Statements statements = sql;
        return "JpaLockStore[" + storeName + ", table " + table + (statements == null ? "" : ", " + statements.database)
                + "]";
    }

    // ---------------------------------------------------------------- transactions and errors

    private <T> T change(String name, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(work);
            } catch (PersistenceException e) {
                if (!isContention(e) || attempt == ATTEMPTS) {
                    throw unavailable(name, e);
                }
            }
        }
    }

    private <T> T read(String name, Work<T> work) {
        try {
            return inTransaction(work);
        } catch (PersistenceException e) {
            throw unavailable(name, e);
        }
    }

    private Query query(EntityManager em, String statement) {
        return em.createNativeQuery(statement).setHint(QUERY_TIMEOUT, queryTimeoutMillis);
    }

    /** Runs {@code work} in a transaction of its own, committed before this returns; never the caller's. */
    private <T> T inTransaction(Work<T> work) {
        if (closed.get()) {
            throw new IllegalStateException("Store '" + storeName + "' is closed");
        }
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
        } catch (jakarta.transaction.SystemException e) {
            throw new PersistenceException("Cannot suspend the caller's transaction", e);
        }
        try {
            manager.setTransactionTimeout((int) Math.max(1, (queryTimeoutMillis + 999) / 1000));
            manager.begin();
            T result;
            EntityManager em = factory.createEntityManager();
            try {
                em.joinTransaction();
                result = work.run(em);
            } catch (RuntimeException e) {
                try {
                    manager.rollback();
                } catch (Exception rollbackFailure) {
                    e.addSuppressed(rollbackFailure);
                }
                throw e;
            } finally {
                em.close();
            }
            manager.commit();
            return result;
        } catch (PersistenceException e) {
            throw e;
        } catch (Exception e) {
            throw new PersistenceException("The store's own JTA transaction failed: " + e, e);
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
                        "Store '" + storeName + "' uses a JTA persistence unit but no "
                                + "TransactionManager was found at " + TRANSACTION_MANAGER_NAMES
                                + "; use a RESOURCE_LOCAL "
                                + "persistence unit over a non-JTA data source, or pass the TransactionManager to "
                                + "JpaLockStore.builder(...).transactionManager(...)",
                        storeName,
                        "persistence-unit",
                        null);
            }
            transactionManager = manager;
        }
        return manager;
    }

    private static boolean isJta(EntityManagerFactory factory) {
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

    /** Deadlocks, serialization failures and lock-wait timeouts: worth another attempt, never an outage. */
    private static boolean isContention(PersistenceException e) {
        if (e instanceof LockTimeoutException || e instanceof PessimisticLockException) {
            return true;
        }
        SQLException sql = sqlCause(e);
        if (sql == null) {
            return false;
        }
        String state = String.valueOf(sql.getSQLState());
        return state.startsWith("40") // 40001 serialization failure / deadlock, 40P01 PostgreSQL deadlock
                || state.equals("55P03") // PostgreSQL lock_not_available
                || sql.getErrorCode() == 1213
                || sql.getErrorCode() == 1205 // MariaDB/MySQL deadlock, lock wait
                || sql.getErrorCode() == 50200
                || sql.getErrorCode() == 90131; // H2 lock timeout, concurrent update
    }

    private static boolean isDuplicateKey(PersistenceException e) {
        SQLException sql = sqlCause(e);
        return sql != null && String.valueOf(sql.getSQLState()).startsWith("23");
    }

    private static SQLException sqlCause(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    private LockStoreUnavailableException unavailable(String name, RuntimeException e) {
        if (e instanceof LockStoreUnavailableException unavailable) {
            return unavailable;
        }
        SQLException sql = sqlCause(e);
        String reason = sql != null ? sql.getMessage() + " (SQLState " + sql.getSQLState() + ")" : String.valueOf(e);
        Statements statements = sql();
        String where = statements == null ? "the database" : statements.database + " table " + table;
        return new LockStoreUnavailableException(
                "Store '" + storeName + "': " + where + " failed" + (name == null ? "" : " for lock '" + name + "'")
                        + ": " + reason,
                name,
                storeName,
                e);
    }

    private Statements sql() {
        return sql;
    }

    // ---------------------------------------------------------------- first use

    /** Recognizes the database and checks (or creates) the table, once; retried on the next call if it failed. */
    private Statements statements() {
        Statements statements = sql;
        if (statements != null) {
            return statements;
        }
        synchronized (initLock) {
            if (sql == null) {
                String[] url = new String[1];
                Database database;
                try {
                    database = recognize(url);
                } catch (PersistenceException e) {
                    throw unavailable(null, e);
                }
                Statements built = new Statements(database, table);
                prepareTable(built);
                signals = SIGNALS.computeIfAbsent(
                        (url[0] == null ? "factory@" + System.identityHashCode(factory) : url[0]) + "|"
                                + table.toLowerCase(java.util.Locale.ROOT),
                        key -> new LocalSignals());
                sql = built;
            }
            return sql;
        }
    }

    private Database recognize(String[] url) {
        String[] product = inTransaction(JpaLockStore::metaData);
        if (product == null) {
            product = probeVersion();
        }
        url[0] = product[2];
        Database database = Database.recognize(product[0], product[1]);
        if (database == null) {
            throw new LockConfigurationException(
                    "Store '" + storeName + "': database '" + product[0] + " " + product[1]
                            + "' is not supported; supported: PostgreSQL, MariaDB, MySQL, H2",
                    storeName,
                    "persistence-unit",
                    null);
        }
        return database;
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
    private String[] probeVersion() {
        try {
            Object version = inTransaction(em -> query(em, "SELECT version()").getSingleResult());
            return new String[] {String.valueOf(version), "", null};
        } catch (PersistenceException notThere) {
            Object version = inTransaction(em -> query(em, "SELECT H2VERSION()").getSingleResult());
            return new String[] {"H2", String.valueOf(version), null};
        }
    }

    private void prepareTable(Statements statements) {
        try {
            inTransaction(em -> query(em, statements.probe).getSingleResult());
            return;
        } catch (PersistenceException missing) {
            if (!createTable) {
                throw new LockStoreUnavailableException(
                        "Store '" + storeName + "': cannot read table '" + table
                                + "' on " + statements.database + " (" + missing.getMessage()
                                + "); create it with the DDL in "
                                + "the JpaLockStore javadoc, or set exclusive.store." + storeName
                                + ".create-table=true",
                        null,
                        storeName,
                        missing);
            }
        }
        for (String ddl : statements.database.createTable(table)) {
            try {
                inTransaction(em -> query(em, ddl).executeUpdate());
            } catch (PersistenceException e) {
                // Another process may be creating it at the same moment; the probe below decides.
                LOG.log(System.Logger.Level.DEBUG, "Creating the lock table failed: {0}", e);
            }
        }
        try {
            inTransaction(em -> query(em, statements.probe).getSingleResult());
        } catch (PersistenceException e) {
            throw unavailable(null, e);
        }
    }

    /** Runs {@link #cleanUp()} when its time has come by this JVM's clock; only one thread wins each turn. */
    private void cleanUpIfDue() {
        long now = clock.millis();
        long due = nextCleanUp.get();
        if (now < due || !nextCleanUp.compareAndSet(due, now + cleanUpEveryMillis)) {
            return;
        }
        try {
            cleanUp();
        } catch (LockStoreUnavailableException e) {
            // Best effort: the lock is already acquired, and the next turn deletes what this one could not.
            LOG.log(System.Logger.Level.WARNING, "Cleanup of lock table " + table + " failed; retried later", e);
        }
    }

    private static LockEntry entry(Object[] row) {
        return new LockEntry(
                (String) row[0],
                (String) row[1],
                LockHolder.decode((String) row[2]),
                Instant.ofEpochMilli(number(row[3])),
                Instant.ofEpochMilli(number(row[4])),
                Duration.ofMillis(Math.max(1, number(row[5]))),
                number(row[6]));
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    private static EntityManagerFactory openFactory(Builder builder) {
        Map<String, Object> properties = new HashMap<>(builder.properties);
        properties.putIfAbsent(QUERY_TIMEOUT, (int) Math.max(1_000, builder.timeout.toMillis()));
        try {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(builder.persistenceUnit, properties);
            if (factory == null) {
                throw new PersistenceException("no persistence provider answered");
            }
            return factory;
        } catch (PersistenceException e) {
            if (sqlCause(e) != null) {
                throw new LockStoreUnavailableException(
                        "Store '" + builder.storeName + "': persistence unit '" + builder.persistenceUnit
                                + "' cannot reach its database: " + sqlCause(e).getMessage(),
                        null,
                        builder.storeName,
                        e);
            }
            throw new LockConfigurationException(
                    "Store '" + builder.storeName + "': cannot open persistence unit '"
                            + builder.persistenceUnit + "' (" + e.getMessage() + "); set exclusive.store."
                            + builder.storeName
                            + ".persistence-unit to a unit in META-INF/persistence.xml that lists dev.exclusive.jpa.LockRow",
                    builder.storeName,
                    "persistence-unit",
                    e);
        }
    }

    /** Settings of a {@link JpaLockStore}; every one has a default. Not thread-safe. */
    public static final class Builder {

        private final EntityManagerFactory factory;
        private final String persistenceUnit;
        private final Map<String, Object> properties = new HashMap<>();
        private String storeName = "jpa";
        private String table = DEFAULT_TABLE;
        private boolean createTable;
        private Duration retention = Duration.ofDays(7);
        private Duration minBackoff = Duration.ofMillis(5);
        private Duration maxBackoff = Duration.ofMillis(100);
        private Duration timeout = Duration.ofSeconds(5);
        private Clock clock = Clock.systemUTC();
        private TransactionManager transactionManager;

        private Builder(EntityManagerFactory factory, String persistenceUnit) {
            this.factory = factory;
            this.persistenceUnit = persistenceUnit;
        }

        /** @param name the configured store's name, for messages (default {@code jpa}) */
        public Builder storeName(String name) {
            this.storeName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param name the lock table, optionally schema-qualified ({@code locks.exclusive_lock}); letters, digits and
         *             underscores (default {@value #DEFAULT_TABLE})
         * @throws LockConfigurationException if it is not such a name
         */
        public Builder table(String name) {
            if (name == null || !TABLE.matcher(name).matches()) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "': table must be a table name of "
                                + "letters, digits and underscores, optionally schema-qualified, got '" + name + "'",
                        storeName,
                        "table",
                        null);
            }
            this.table = name;
            return this;
        }

        /** @param create whether to create the table (and its index) on first use when missing (default false) */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /**
         * @param retention how long after its last lease ended a name's row is kept (and its fence remembered);
         *                  positive (default 7 days)
         */
        public Builder retention(Duration retention) {
            this.retention = positive("retention", retention);
            return this;
        }

        /**
         * @param min the first pause of a waiter polling for a release made in another JVM (default 5 ms)
         * @param max the longest pause (default 100 ms)
         */
        public Builder backoff(Duration min, Duration max) {
            if (min == null || max == null || min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "': backoff needs 0 < min-backoff <= " + "max-backoff, got " + min
                                + " and " + max,
                        storeName,
                        "min-backoff",
                        null);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * @param timeout the longest a statement may run before the store reports the database unavailable; at least
         *                one second is used (default 5 s)
         */
        public Builder timeout(Duration timeout) {
            this.timeout = positive("timeout", timeout);
            return this;
        }

        private Duration positive(String key, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "': " + key + " must be positive, got " + value, storeName, key, null);
            }
            return value;
        }

        /** @param clock this JVM's clock; it only paces the opportunistic cleanup and never decides an expiry */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param properties persistence unit properties that override {@code persistence.xml}, for a store that opens
         *                   its unit by name
         */
        public Builder properties(Map<String, ?> properties) {
            this.properties.putAll(properties);
            return this;
        }

        /** @param manager the server's transaction manager, for a JTA persistence unit */
        public Builder transactionManager(TransactionManager manager) {
            this.transactionManager = manager;
            return this;
        }

        /**
         * @return the store; nothing is sent to the database until its first operation
         * @throws LockConfigurationException if the persistence unit cannot be opened
         */
        public JpaLockStore build() {
            return new JpaLockStore(this);
        }
    }
}

package dev.exclusive.jpa;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JDBC connections of a persistence unit, taken from the unit's own connection source (Hibernate's
 * {@code ConnectionProvider}: its pool over the unit's JDBC URL, or the unit's data source), so that one statement
 * can run in autocommit: one round trip, where an {@code EntityTransaction} costs a {@code BEGIN} and a
 * {@code COMMIT} more. The statements are the store's native SQL with JPA ordinal parameters ({@code ?1}), bound
 * here to JDBC's positional ones.
 *
 * <p>A connection that comes out of the source with autocommit off (Hibernate's pool with
 * {@code hibernate.connection.autocommit=false}, its default) is switched on for the statement and back before it
 * is returned, which costs a round trip each way on MariaDB: the store's own unit should hand out connections in
 * autocommit ({@code hibernate.connection.autocommit=true}; a data source does by default).
 *
 * <p><b>Timeouts.</b> A query timeout alone does not bound a statement whose network falls silent on an open
 * connection: the read of its answer is not interrupted, and without a socket timeout in the unit's URL it waits for
 * ever. So each borrowed connection gets the store's network timeout (JDBC 4.1 {@link Connection#setNetworkTimeout}),
 * and its own is restored before it goes back; past it the driver aborts the connection, the statement fails, and
 * the pool discards the closed connection. Whether a statement also gets a query timeout depends on the driver:
 * <ul>
 * <li>PostgreSQL's and MySQL Connector/J's cancel a statement from a timer thread, on a new connection to the server,
 * and wait for that cancel after a failed read: a timer task per statement (on PostgreSQL 0.06 of the uncontended
 * acquire+release ratio to raw JDBC), and on a silent network the cancel's own timeout ({@code cancelSignalTimeout},
 * 10 s) on top of the network timeout. MariaDB Connector/J sends each statement as {@code SET STATEMENT
 * max_statement_time=... FOR ...}, which the server pays on every statement (about 0.03 of the uncontended
 * acquire+release ratio to raw JDBC, as does any {@code SET STATEMENT}). Their statements get the network timeout
 * only, of the store's timeout. A statement that waits longer for a row lock then fails as well, its connection
 * closed; the server may still carry it out when the lock is let go, as with any answer lost on the way;</li>
 * <li>the others keep the query timeout, which leaves the connection usable, and get a network timeout a second
 * longer, so that a live server's answer comes first;</li>
 * <li>a driver or pool without network timeouts, one that refuses them or (H2 embedded) keeps 0, asked once per
 * store: the query timeout only.</li>
 * </ul>
 */
final class Connections {

    private static final Pattern ORDINAL = Pattern.compile("\\?(\\d+)");
    private static final String PROVIDER = "org.hibernate.engine.jdbc.connections.spi.ConnectionProvider";
    private static final String SESSION_FACTORY = "org.hibernate.engine.spi.SessionFactoryImplementor";
    /** How long past its query timeout a statement waits for the server's answer to the cancel. */
    private static final int CANCEL_GRACE_MILLIS = 1_000;
    /** A connection's network timeout that this class did not set. */
    static final int UNSET = -1;
    /**
     * Runs what the driver gives it at once, on the caller's thread: MySQL Connector/J sets the network timeout
     * through it, which must have happened before the statement runs; and an abort through it has closed the
     * connection's socket when {@link Connection#abort} returns.
     */
    static final Executor DIRECT = Runnable::run;

    /** What a statement's work does with its connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** A statement in JDBC form: {@code ?} placeholders, and which argument (0-based) each one takes. */
    record Prepared(String sql, int[] arguments) {}

    private final MethodHandle open;
    private final MethodHandle close;
    private final int timeoutSeconds;
    private final ConcurrentHashMap<String, Prepared> prepared = new ConcurrentHashMap<>();
    /** Whether the connections take a network timeout: true until one refuses it or does not keep it. */
    private volatile boolean networkTimeouts = true;
    /** Whether statements get a query timeout besides the network timeout: see the class javadoc. */
    private volatile boolean queryTimeouts = true;
    /** The network timeout a borrowed connection gets. */
    private volatile int networkTimeoutMillis;
    /** Whether the driver has been asked what it does with timeouts, which happens once. */
    private volatile boolean checked;

    private Connections(MethodHandle open, MethodHandle close, int timeoutSeconds) {
        this.open = open;
        this.close = close;
        this.timeoutSeconds = timeoutSeconds;
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeoutSeconds * 1_000L + CANCEL_GRACE_MILLIS);
    }

    /**
     * @param timeoutMillis the longest a statement may run (rounded up to whole seconds, JDBC's granularity)
     * @return the connections of {@code factory}'s unit, or {@code null} when the provider is not Hibernate (the
     *         store then runs every statement in a transaction through Jakarta Persistence)
     */
    static Connections of(EntityManagerFactory factory, long timeoutMillis) {
        try {
            ClassLoader loader = factory.getClass().getClassLoader();
            Class<?> sessionFactory = Class.forName(SESSION_FACTORY, false, loader);
            Class<?> providerType = Class.forName(PROVIDER, false, loader);
            Object unwrapped = factory.unwrap(sessionFactory);
            Object registry = sessionFactory.getMethod("getServiceRegistry").invoke(unwrapped);
            Object provider =
                    registry.getClass().getMethod("getService", Class.class).invoke(registry, providerType);
            if (provider == null) {
                return null;
            }
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            return new Connections(
                    lookup.unreflect(providerType.getMethod("getConnection")).bindTo(provider),
                    lookup.unreflect(providerType.getMethod("closeConnection", Connection.class))
                            .bindTo(provider),
                    (int) Math.max(1, (timeoutMillis + 999) / 1000));
        } catch (ReflectiveOperationException | RuntimeException notHibernate) {
            return null;
        }
    }

    /**
     * Runs {@code work} on a connection in autocommit, which goes back to the source afterwards.
     *
     * @throws PersistenceException carrying the {@link SQLException} if the work or the connection fails
     */
    <T> T run(Work<T> work) {
        Connection connection = open();
        boolean switched = false;
        int networkTimeout = UNSET;
        try {
            networkTimeout = bound(connection);
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
                switched = true;
            }
            return work.run(connection);
        } catch (SQLException e) {
            throw new PersistenceException(e.getMessage(), e);
        } finally {
            unbound(connection, networkTimeout);
            release(connection, switched);
        }
    }

    /**
     * Gives {@code connection} the store's network timeout, unless the connections proved that they do not take one.
     *
     * @return the connection's own network timeout, to restore, or {@link #UNSET} if it has not been changed
     * @throws SQLException if the connection fails (it is closed, say)
     */
    int bound(Connection connection) throws SQLException {
        if (!networkTimeouts) {
            return UNSET;
        }
        int millis = networkTimeoutMillis;
        int previous;
        try {
            previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, millis);
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError e) {
            networkTimeouts = false;
            return UNSET;
        } catch (SQLException e) {
            if (checked) {
                throw e; // it took one before: this connection fails, and so would its statement
            }
            // a pool that refuses it outright (some refuse it on their wrapper): the query timeout, as before
            networkTimeouts = false;
            return UNSET;
        }
        if (!checked) {
            if (connection.getNetworkTimeout() != millis) {
                networkTimeouts = false;
                connection.setNetworkTimeout(DIRECT, previous);
                return UNSET;
            }
            if (queryTimeoutCostsEveryStatement(connection)) {
                networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeoutSeconds * 1_000L);
                queryTimeouts = false;
            }
            checked = true;
        }
        return previous;
    }

    /**
     * @return whether the driver's query timeout costs every statement something (a timer task and a cancel through a
     *         new connection, or a {@code SET STATEMENT} on the server): see the class javadoc
     */
    private static boolean queryTimeoutCostsEveryStatement(Connection connection) throws SQLException {
        String driver = String.valueOf(connection.getMetaData().getDriverName());
        return driver.startsWith("PostgreSQL")
                || driver.startsWith("MySQL Connector")
                || driver.startsWith("MariaDB Connector");
    }

    /** Gives {@code connection} back its own network timeout, if {@link #bound} changed it. */
    static void unbound(Connection connection, int previous) {
        if (previous == UNSET) {
            return;
        }
        try {
            connection.setNetworkTimeout(DIRECT, previous);
        } catch (SQLException | RuntimeException e) {
            // An aborted connection refuses it: the source discards a closed connection.
        }
    }

    /** @return a connection of the unit, held until {@link #release}; for the store's one listening connection */
    Connection open() {
        try {
            return (Connection) open.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new PersistenceException("Cannot get a connection of the persistence unit: " + e, e);
        }
    }

    /** Hands {@code connection} back to the unit's source, with autocommit as it came when {@code switched}. */
    void release(Connection connection, boolean switched) {
        try {
            if (switched) {
                connection.setAutoCommit(false);
            }
        } catch (SQLException e) {
            // The source validates or discards it; nothing is pending on a connection in autocommit.
        }
        try {
            close.invoke(connection);
        } catch (Throwable e) {
            // A connection that cannot be closed is the source's to discard; the statement's outcome stands.
        }
    }

    /** @return the rows {@code sql} answers, each as an array of its columns */
    List<Object[]> rows(Connection connection, String sql, Object... arguments) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, arguments);
                ResultSet result = statement.executeQuery()) {
            ResultSetMetaData meta = result.getMetaData();
            int columns = meta.getColumnCount();
            List<Object[]> rows = new ArrayList<>(1);
            while (result.next()) {
                Object[] row = new Object[columns];
                for (int i = 0; i < columns; i++) {
                    row[i] = result.getObject(i + 1);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** @return how many rows {@code sql} changed */
    int update(Connection connection, String sql, Object... arguments) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, arguments)) {
            return statement.executeUpdate();
        }
    }

    private PreparedStatement prepare(Connection connection, String sql, Object[] arguments) throws SQLException {
        Prepared jdbc = prepared.computeIfAbsent(sql, Connections::toJdbc);
        PreparedStatement statement = connection.prepareStatement(jdbc.sql());
        try {
            if (queryTimeouts || !networkTimeouts) {
                statement.setQueryTimeout(timeoutSeconds);
            }
            for (int i = 0; i < jdbc.arguments().length; i++) {
                statement.setObject(i + 1, arguments[jdbc.arguments()[i]]);
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /** @return {@code sql} with each {@code ?n} replaced by {@code ?}, and the argument each one takes */
    static Prepared toJdbc(String sql) {
        Matcher ordinal = ORDINAL.matcher(sql);
        StringBuilder jdbc = new StringBuilder(sql.length());
        List<Integer> order = new ArrayList<>();
        while (ordinal.find()) {
            order.add(Integer.parseInt(ordinal.group(1)) - 1);
            ordinal.appendReplacement(jdbc, "?");
        }
        ordinal.appendTail(jdbc);
        return new Prepared(
                jdbc.toString(), order.stream().mapToInt(Integer::intValue).toArray());
    }
}

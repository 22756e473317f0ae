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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
 */
final class Connections {

    private static final Pattern ORDINAL = Pattern.compile("\\?(\\d+)");
    private static final String PROVIDER = "org.hibernate.engine.jdbc.connections.spi.ConnectionProvider";
    private static final String SESSION_FACTORY = "org.hibernate.engine.spi.SessionFactoryImplementor";

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

    private Connections(MethodHandle open, MethodHandle close, int timeoutSeconds) {
        this.open = open;
        this.close = close;
        this.timeoutSeconds = timeoutSeconds;
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
        try {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
                switched = true;
            }
            return work.run(connection);
        } catch (SQLException e) {
            throw new PersistenceException(e.getMessage(), e);
        } finally {
            release(connection, switched);
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
            statement.setQueryTimeout(timeoutSeconds);
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

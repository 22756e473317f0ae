package dev.exclusive.jpa;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;

/**
 * Hibernate's connection source for a test database (given as {@code hibernate.connection.provider_class}, an
 * instance), recording the query timeouts that the statements on its connections get; with
 * {@code refuseNetworkTimeouts}, its connections' {@code setNetworkTimeout} fails with a plain {@link SQLException},
 * as some pools' wrappers do.
 */
final class RecordingProvider implements ConnectionProvider {

    /** A statement's SQL and the query timeout it was given. */
    record QueryTimeout(String sql, int seconds) {}

    final AtomicInteger refusals = new AtomicInteger();
    final List<QueryTimeout> queryTimeouts = new CopyOnWriteArrayList<>();
    private final TestDatabase database;
    private final boolean refuseNetworkTimeouts;

    RecordingProvider(TestDatabase database, boolean refuseNetworkTimeouts) {
        this.database = database;
        this.refuseNetworkTimeouts = refuseNetworkTimeouts;
    }

    /**
     * @return the query timeouts, in seconds and in order, given to statements on {@code table} that start with one of
     *         {@code starts} (the store's lock statements, not the set-up's catalog queries)
     */
    List<Integer> queryTimeoutsOn(String table, String... starts) {
        return queryTimeouts.stream()
                .filter(t -> t.sql().contains(table)
                        && java.util.Arrays.stream(starts).anyMatch(t.sql()::startsWith))
                .map(QueryTimeout::seconds)
                .toList();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = database.connect();
        return proxy(Connection.class, connection, (method, args) -> {
            if (refuseNetworkTimeouts && method.getName().equals("setNetworkTimeout")) {
                refusals.incrementAndGet();
                throw new SQLException("network timeouts are not allowed on this pool's connections");
            }
            Object result = method.invoke(connection, args);
            return result instanceof PreparedStatement statement
                    ? proxy(PreparedStatement.class, statement, (call, callArgs) -> {
                        if (call.getName().equals("setQueryTimeout")) {
                            queryTimeouts.add(new QueryTimeout((String) args[0], (Integer) callArgs[0]));
                        }
                        return call.invoke(statement, callArgs);
                    })
                    : result;
        });
    }

    @Override
    public void closeConnection(Connection connection) throws SQLException {
        connection.close();
    }

    @Override
    public boolean supportsAggressiveRelease() {
        return false;
    }

    @Override
    public boolean isUnwrappableAs(Class<?> type) {
        return false;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        throw new UnsupportedOperationException(type.getName());
    }

    /** What a proxy does with a call; the target's exceptions come out unwrapped. */
    @FunctionalInterface
    private interface Call {
        Object on(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (self, method, args) -> {
            try {
                return call.on(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(
                Proxy.newProxyInstance(RecordingProvider.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}

package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A pool whose connections refuse a network timeout with a plain {@link SQLException} (as some pools' wrappers do,
 * rather than {@code SQLFeatureNotSupportedException}) does not fail the lock operations: the store falls back to
 * the statements' query timeout, as it does for a driver without network timeouts. It runs on PostgreSQL, whose
 * statements get no query timeout once the connections take network timeouts: a refusal must bring it back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusedNetworkTimeoutTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final String TABLE = "exclusive_lock_refused_timeout";
    private static final TestDatabase DATABASE = TestDatabase.POSTGRES;

    @BeforeAll
    void freshTable() throws SQLException {
        DATABASE.assumeAvailable();
        DATABASE.dropTable(TABLE);
    }

    @Test
    void aPoolThatRefusesNetworkTimeoutsGetsQueryTimeoutsAndTheLocksWork() {
        RefusingProvider pool = new RefusingProvider();
        try (EntityManagerFactory factory = DATABASE.open(Map.of("hibernate.connection.provider_class", pool));
                JpaLockStore store = JpaLockStore.builder(factory)
                        .table(TABLE)
                        .createTable(true)
                        .timeout(Duration.ofSeconds(3))
                        .build()) {
            for (int i = 0; i < 3; i++) {
                assertTrue(store.tryAcquire("refused", "owner-" + i, HOLDER, Duration.ofSeconds(30))
                        .acquired());
                assertTrue(store.release("refused", "owner-" + i));
            }
            assertTrue(pool.refusals.get() >= 1, "the pool was asked for a network timeout and refused it");
            // the acquisitions (a WITH) and releases (an UPDATE); Hibernate's own statements, such as the DDL, get
            // its default of 0
            List<Integer> locking = pool.queryTimeouts.stream()
                    .filter(t -> (t.sql().startsWith("WITH ") || t.sql().startsWith("UPDATE "))
                            && t.sql().contains(TABLE))
                    .map(QueryTimeout::seconds)
                    .toList();
            assertEquals(List.of(3, 3, 3, 3, 3, 3), locking, "the store's timeout in s, on each acquire and release");
        }
    }

    /**
     * Hibernate's connection source, handing out PostgreSQL connections whose {@code setNetworkTimeout} fails with a
     * plain {@link SQLException}, and recording the query timeouts their statements get.
     */
    static final class RefusingProvider implements ConnectionProvider {

        final AtomicInteger refusals = new AtomicInteger();
        final List<QueryTimeout> queryTimeouts = new CopyOnWriteArrayList<>();

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = DATABASE.connect();
            return proxy(Connection.class, connection, (method, args) -> {
                if (method.getName().equals("setNetworkTimeout")) {
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
    }

    /** A statement's SQL and the query timeout it was given. */
    record QueryTimeout(String sql, int seconds) {}

    /** What a proxy does with a call; the target's exceptions come out unwrapped. */
    @FunctionalInterface
    interface Call {
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
        return type.cast(Proxy.newProxyInstance(
                RefusedNetworkTimeoutTest.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}

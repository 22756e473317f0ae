package dev.exclusive.jpa;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.engine.jdbc.connections.internal.DriverManagerConnectionProviderImpl;

/**
 * Hibernate's connection pool, whose connections make every statement wait before it is prepared, as over a slow
 * network, once a test turns it on: whether the store sends it through Jakarta Persistence or straight over JDBC.
 * Counts the statements it delayed, and every statement prepared and transaction committed on its connections. Set
 * as {@code hibernate.connection.provider_class} (an instance).
 */
final class SlowStatements extends DriverManagerConnectionProviderImpl {

    private volatile Duration delay = Duration.ZERO;
    private volatile int delayed;
    private final AtomicInteger prepared = new AtomicInteger();
    private final AtomicInteger committed = new AtomicInteger();

    /** @param delay how long each following statement waits before it is sent */
    void delay(Duration delay) {
        this.delay = delay;
    }

    /** @return how many statements were prepared on this pool's connections so far */
    int prepared() {
        return prepared.get();
    }

    /** @return how many transactions were committed on this pool's connections so far */
    int committed() {
        return committed.get();
    }

    /** @return how many statements waited so far */
    int delayed() {
        return delayed;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("prepare")) {
                        prepared.incrementAndGet();
                        pause();
                    } else if (method.getName().equals("commit")) {
                        committed.incrementAndGet();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public void closeConnection(Connection connection) throws SQLException {
        super.closeConnection(
                Proxy.isProxyClass(connection.getClass()) ? connection.unwrap(Connection.class) : connection);
    }

    private void pause() {
        if (!delay.isZero()) {
            delayed++;
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while simulating a slow network", e);
            }
        }
    }
}

package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A database that is down (a closed port) or hangs (a port that accepts and never answers) is reported as
 * {@link LockStoreUnavailableException} within the timeout, never as a hang. No real server is needed.
 */
class UnavailableDatabaseTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration BOUND = Duration.ofSeconds(8);

    @Test
    void closedPortOnPostgresqlIsUnavailableWithinTheTimeout() throws IOException {
        int port = closedPort();
        assertUnavailable(factory(
                "exclusive-postgres",
                "org.hibernate.dialect.PostgreSQLDialect",
                "jdbc:postgresql://127.0.0.1:" + port + "/test?connectTimeout=2&loginTimeout=2&socketTimeout=2"));
    }

    @Test
    void closedPortOnMariadbIsUnavailableWithinTheTimeout() throws IOException {
        int port = closedPort();
        assertUnavailable(factory(
                "exclusive-mariadb",
                "org.hibernate.dialect.MariaDBDialect",
                "jdbc:mariadb://127.0.0.1:" + port + "/test?connectTimeout=2000&socketTimeout=2000"));
    }

    @Test
    void silentServerIsUnavailableWithinTheTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // accept, then say nothing
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            assertUnavailable(factory(
                    "exclusive-postgres",
                    "org.hibernate.dialect.PostgreSQLDialect",
                    "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort()
                            + "/test?connectTimeout=2&loginTimeout=2&socketTimeout=2"));
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    private static EntityManagerFactory factory(String unit, String dialect, String url) {
        return Persistence.createEntityManagerFactory(
                unit,
                Map.of(
                        "jakarta.persistence.jdbc.url",
                        url,
                        "hibernate.dialect",
                        dialect,
                        "hibernate.boot.allow_jdbc_metadata_access",
                        "false",
                        "hibernate.connection.initial_pool_size",
                        "0",
                        "hibernate.connection.min_pool_size",
                        "0"));
    }

    private static void assertUnavailable(EntityManagerFactory factory) {
        try (factory;
                JpaLockStore store = JpaLockStore.builder(factory)
                        .storeName("db")
                        .timeout(Duration.ofSeconds(2))
                        .build()) {
            within(() -> store.tryAcquire("x", "a", HOLDER, Duration.ofSeconds(10)));
            within(() -> store.release("x", "a"));
            within(store::ping);
            try (LockRegistry registry =
                    LockRegistry.builder().store("db", store).build()) {
                within(() -> registry.lock("x", 10).get());
            }
        }
    }

    private static void within(Executable operation) {
        long start = System.nanoTime();
        LockStoreUnavailableException e = assertThrows(LockStoreUnavailableException.class, operation);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(BOUND) < 0, "took " + took);
        assertTrue(e.getMessage().contains("db") && e.getCause() != null, e.getMessage());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

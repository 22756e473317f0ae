package dev.exclusive.jpa;

import dev.exclusive.LockRegistry;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;

/**
 * One contending process of {@link TwoProcessesPostgresIT}: adds one to a counter row {@code rounds} times, each
 * time reading and then writing it in two separate autocommitted statements under the lock, so that only the
 * lock prevents lost updates.
 *
 * <p>Arguments: counter name, rounds.
 */
public final class CounterWorker {

    private CounterWorker() {}

    public static void main(String[] args) throws Exception {
        String counter = args[0];
        int rounds = Integer.parseInt(args[1]);
        EntityManagerFactory factory = TestDatabase.POSTGRES.open();
        try (factory;
                LockRegistry registry = LockRegistry.builder()
                        .store(
                                "db",
                                JpaLockStore.builder(factory).createTable(true).build())
                        .build();
                Connection connection = TestDatabase.POSTGRES.connect();
                PreparedStatement read =
                        connection.prepareStatement("SELECT value FROM exclusive_it_counter WHERE name = ?");
                PreparedStatement write =
                        connection.prepareStatement("UPDATE exclusive_it_counter SET value = ? WHERE name = ?")) {
            for (int i = 0; i < rounds; i++) {
                boolean done = registry.lock("counter:" + counter, Duration.ofSeconds(30))
                        .block(Duration.ofSeconds(60), () -> {
                            read.setString(1, counter);
                            long value;
                            try (ResultSet row = read.executeQuery()) {
                                row.next();
                                value = row.getLong(1);
                            }
                            write.setLong(1, value + 1);
                            write.setString(2, counter);
                            write.executeUpdate();
                        });
                if (!done) {
                    System.err.println("gave up waiting after 60 s");
                    System.exit(2);
                }
            }
        }
        System.out.println("done " + rounds);
    }
}

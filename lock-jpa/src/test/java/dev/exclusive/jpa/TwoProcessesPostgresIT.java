package dev.exclusive.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two JVMs contend through PostgreSQL for one lock around a read-then-write of a counter: no update is lost. */
class TwoProcessesPostgresIT {

    private static final int ROUNDS = 150;

    @TempDir
    Path logs;

    @BeforeAll
    static void needsPostgres() {
        TestDatabase.POSTGRES.assumeAvailable();
    }

    @Test
    void twoJvmsLoseNoUpdate() throws Exception {
        String counter = UUID.randomUUID().toString();
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE IF NOT EXISTS exclusive_it_counter (name VARCHAR(64) PRIMARY KEY, value BIGINT)");
            statement.execute("INSERT INTO exclusive_it_counter VALUES ('" + counter + "', 0)");
        }
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            File log = logs.resolve("worker-" + i + ".log").toFile();
            processes.add(new ProcessBuilder(
                            java, "-cp", classPath, CounterWorker.class.getName(), counter, String.valueOf(ROUNDS))
                    .redirectErrorStream(true)
                    .redirectOutput(log)
                    .start());
        }
        for (int i = 0; i < processes.size(); i++) {
            Process process = processes.get(i);
            boolean ended = process.waitFor(170, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly();
            }
            String output = Files.readString(logs.resolve("worker-" + i + ".log"));
            assertTrue(ended, "worker " + i + " did not finish: " + output);
            assertEquals(0, process.exitValue(), "worker " + i + " failed: " + output);
        }
        try (Connection connection = TestDatabase.POSTGRES.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT value FROM exclusive_it_counter WHERE name = '" + counter + "'")) {
            row.next();
            assertEquals(2L * ROUNDS, row.getLong(1), "lost updates");
        }
    }
}

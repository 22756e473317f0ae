package dev.exclusive.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The file store between real JVM processes, as on a host where several processes share a folder. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FileLockStoreProcessTest {

    @TempDir
    Path folder;

    @Test
    void threeProcessesIncrementingUnderTheLockLoseNoUpdate() throws Exception {
        Path counter = Files.writeString(folder.resolve("counter.txt"), "0");
        Path locks = folder.resolve("locks");
        int processes = 3;
        int rounds = 300;
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            workers.add(java("count", locks.toString(), counter.toString(), Integer.toString(rounds))
                    .start());
        }
        for (Process worker : workers) {
            assertTrue(worker.waitFor(150, TimeUnit.SECONDS), "worker did not finish");
            assertEquals(
                    0,
                    worker.exitValue(),
                    "worker failed: " + new String(worker.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        assertEquals(
                processes * rounds, Integer.parseInt(Files.readString(counter).strip()), "lost updates");
    }

    @Test
    void aHolderKilledWithSigkillFreesTheLockAtItsTtlAndNotBefore() throws Exception {
        Path locks = folder.resolve("locks");
        long ttlMillis = 3_000;
        Process holder = java("hold", locks.toString(), "killed", Long.toString(ttlMillis))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(locks)).build()) {
            BufferedReader output =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line = output.readLine();
            assertTrue(line != null && line.startsWith("acquired"), "holder said " + line);
            holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no shutdown hook, no release

            LockInfo held = registry.liveLocks("killed", 1).get(0);
            assertTrue(registry.lock("killed", 10).isLocked(), "a killed holder's lock stays until its ttl");
            Instant expiresAt = held.expiresAt();

            assertTrue(registry.lock("killed", 10).block(Duration.ofSeconds(20)));
            Instant acquiredAt = registry.liveLocks("killed", 1).get(0).acquiredAt();
            assertTrue(
                    !acquiredAt.isBefore(expiresAt),
                    "acquired at " + acquiredAt + ", before the dead holder's lease" + " ended at " + expiresAt);
        } finally {
            holder.destroyForcibly();
        }
    }

    private static ProcessBuilder java(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FileCounterWorker.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(new File(System.getProperty("user.dir")));
    }
}

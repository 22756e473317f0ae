package dev.exclusive.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStoreUnavailableException;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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
    void threeProcessesAppendingToTheAuditTrailLoseNoRecord() throws Exception {
        Path locks = folder.resolve("locks");
        int processes = 3;
        int rounds = 150;
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            workers.add(java("audit", locks.toString(), "worker-" + i, Integer.toString(rounds))
                    .start());
        }
        for (Process worker : workers) {
            assertTrue(worker.waitFor(150, TimeUnit.SECONDS), "worker did not finish");
            assertEquals(
                    0,
                    worker.exitValue(),
                    "worker failed: " + new String(worker.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        List<AuditRecord> trail = new FileLockStore(locks).auditTrail(1000);
        assertEquals(processes * rounds, trail.size(), "lost audit records");
        for (int i = 0; i < processes; i++) {
            String actor = "worker-" + i;
            assertEquals(
                    rounds, trail.stream().filter(r -> r.actor().equals(actor)).count(), actor);
        }
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

    @Test
    void manyProcessesThreadsAndNamesNeverFailAndNeverOverlap() throws Exception {
        // fcntl locks belong to a process: a JVM that holds one file's lock while another of its threads waits in
        // the kernel for a second file looks like a deadlock to the kernel when another JVM does the reverse.
        List<String> reports = stress(folder.resolve("locks"), 4, 12, 8, 4_000);
        for (String report : reports) {
            assertTrue(report.matches("calls=\\d+ failures=0 overlaps=0 fenceRegressions=0 removed=0"), report);
        }
    }

    @Test
    void removingIdleFilesWhileProcessesLockThemNeverMakesTwoHolders() throws Exception {
        // Each process also removes every file idle for a millisecond, as fast as it can: threads of other
        // processes keep opening files that are about to be removed, and must never lock one that was.
        List<String> reports = stress(folder.resolve("locks"), 4, 6, 16, 4_000, "clean");
        long removed = 0;
        for (String report : reports) {
            assertTrue(report.matches("calls=\\d+ failures=0 overlaps=0 fenceRegressions=0 removed=\\d+"), report);
            removed += Long.parseLong(report.substring(report.indexOf("removed=") + 8));
        }
        assertTrue(removed > 100, "files removed while in use: " + removed + "; " + reports);
    }

    @Test
    void anOsLockThatStaysTakenIsReportedAfterTheTimeoutNamingTheFolder() throws Exception {
        Path locks = folder.resolve("locks");
        Process holder = java("hold-os-lock", locks.toString(), "stuck")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (FileLockStore store = new FileLockStore(
                locks, "files", false, Clock.systemUTC(), Duration.ofHours(24), Duration.ofMillis(300))) {
            String line = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertEquals("locked", line);
            long start = System.nanoTime();
            LockStoreUnavailableException e = assertThrows(
                    LockStoreUnavailableException.class,
                    () -> store.tryAcquire(
                            "stuck", "owner", new LockHolder("test", "main", ""), Duration.ofSeconds(1)));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited >= 290 && waited < 3_000, "waited " + waited + " ms for a 300 ms timeout");
            assertTrue(e.getMessage().contains(store.directory().toString()), e.getMessage());
            assertTrue(e.getMessage().contains("another process kept the OS lock"), e.getMessage());
            assertEquals("stuck", e.lockName().orElseThrow());
            assertTrue(
                    store.tryAcquire("free", "owner", new LockHolder("test", "main", ""), Duration.ofSeconds(1))
                            .acquired(),
                    "other names are not affected");
        } finally {
            holder.destroyForcibly();
        }
    }

    /** Runs {@code processes} stress workers at once; answers the last line of each, having shown their errors. */
    static List<String> stress(Path locks, int processes, int threads, int names, long millis, String... extra)
            throws Exception {
        Path checks = Files.createDirectories(locks.resolveSibling("checks"));
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            List<String> args = new ArrayList<>(List.of(
                    "stress",
                    locks.toString(),
                    checks.toString(),
                    Integer.toString(threads),
                    Integer.toString(names),
                    Long.toString(millis)));
            args.addAll(List.of(extra));
            workers.add(java(args.toArray(String[]::new)).start());
        }
        List<String> reports = new ArrayList<>();
        for (Process worker : workers) {
            assertTrue(worker.waitFor(millis + 60_000, TimeUnit.MILLISECONDS), "worker did not finish");
            String output = new String(worker.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            String errors = new String(worker.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, worker.exitValue(), "worker failed: " + errors);
            String report = output.substring(output.lastIndexOf('\n') + 1);
            reports.add(report + (errors.isBlank() ? "" : "; first failure: " + errors));
        }
        return reports;
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

package dev.exclusive.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.AuditRecord;
import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.contract.LockStoreContract;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLockStoreTest extends LockStoreContract {

    @TempDir
    Path folder;

    @Override
    protected LockStore createStore() {
        return new FileLockStore(folder);
    }

    @Override
    protected Optional<LockStore> createStore(AuditLimits limits) {
        return Optional.of(new FileLockStore(
                folder,
                "file",
                false,
                Clock.systemUTC(),
                FileLockStore.DEFAULT_RETENTION,
                FileLockStore.DEFAULT_TIMEOUT,
                limits));
    }

    @Test
    void auditRecordsOlderThanTheMaximumAgeAreDroppedByTheHostClock() {
        SettableClock clock = new SettableClock(Instant.parse("2026-11-29T12:00:00Z"));
        FileLockStore files = new FileLockStore(
                folder,
                "files",
                false,
                clock,
                Duration.ofHours(1),
                Duration.ofSeconds(5),
                new AuditLimits(100, Duration.ofHours(1)));
        files.audit(
                new AuditRecord(Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, "old", "owner", 1, null, "node-1", "lost"));
        clock.advance(Duration.ofMinutes(30));
        files.audit(new AuditRecord(
                Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, "newer", "owner", 2, null, "node-1", "lost"));
        assertEquals(
                List.of(Instant.parse("2026-11-29T12:30:00Z"), Instant.parse("2026-11-29T12:00:00Z")),
                files.auditTrail(10).stream().map(AuditRecord::at).toList(),
                "stamped by the host clock");

        clock.advance(Duration.ofMinutes(40));
        assertEquals(
                List.of("newer"),
                files.auditTrail(10).stream().map(AuditRecord::lockName).toList(),
                "an hour old is too old");
        files.audit(new AuditRecord(
                Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, "newest", "owner", 3, null, "node-1", "lost"));
        assertEquals(2, lines(folder.resolve("audit.log")), "the rewrite drops what aged out");
    }

    /**
     * A trail inside its configured limits but larger than the 64 MB the store reads (300,000 usual records; the
     * limits allow 1,000,000) keeps working: the oldest records beyond 64 MB are dropped at the next append. Before,
     * every append and read failed from then on, and the trail silently stopped recording.
     */
    @Test
    void anAuditTrailLargerThanTheStoreReadsDropsItsOldestRecordsInsteadOfFailing() throws IOException {
        FileLockStore files = new FileLockStore(
                folder,
                "files",
                false,
                Clock.systemUTC(),
                Duration.ofHours(1),
                Duration.ofSeconds(5),
                new AuditLimits(1_000_000, Duration.ofDays(7)));
        String line = new AuditRecord(
                        Instant.now(),
                        AuditRecord.Kind.LEASE_LOST,
                        "orders:purchase:12345",
                        "0f8fad5b-d9cb-469f-a165-70867728950e",
                        1_733_000_000_000_000L,
                        new LockHolder("host-a/4711", "pool-3-thread-17", "purchase"),
                        "scheduler",
                        "lease ran out after 30 s while the holder was still working")
                .encode();
        Path trail = folder.resolve("audit.log");
        try (BufferedWriter out = Files.newBufferedWriter(trail)) {
            for (long written = 0; written <= 66L * 1024 * 1024; written += line.length() + 1) {
                out.write(line);
                out.write('\n');
            }
        }

        files.audit(new AuditRecord(
                Instant.EPOCH, AuditRecord.Kind.LEASE_LOST, "newest", "owner", 1, null, "node-1", "lost"));

        List<AuditRecord> newest = files.auditTrail(10);
        assertEquals(10, newest.size());
        assertEquals("newest", newest.get(0).lockName());
        assertTrue(Files.size(trail) <= 64L * 1024 * 1024, "trimmed to what the store reads: " + Files.size(trail));
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void namesNeverEscapeTheFolder() throws IOException {
        Path inside = folder.resolve("locks");
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(inside)).build()) {
            for (String name : List.of("../x", "../../etc/passwd", "/etc/passwd", "C:\\x", "..", "a/../../b", "~")) {
                assertTrue(registry.lock(name, 10).get(), name);
            }
        }
        try (Stream<Path> everything = Files.walk(folder)) {
            List<Path> files = everything.filter(Files::isRegularFile).toList();
            assertEquals(7, files.size(), String.valueOf(files));
            files.forEach(file -> assertEquals(inside, file.getParent(), file + " is outside the lock folder"));
        }
    }

    @Test
    void fencesSurviveARestartOfTheStore() {
        long fence;
        try (LockRegistry first =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            Lock lock = first.lock("fenced", 10);
            assertTrue(lock.get());
            fence = lock.fence().getAsLong();
            assertTrue(lock.release());
        }
        try (LockRegistry restarted =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            Lock lock = restarted.lock("fenced", 10);
            assertTrue(lock.get());
            assertTrue(lock.fence().getAsLong() > fence);
        }
    }

    @Test
    void expiryFollowsTheHostClock() {
        Instant start = Instant.parse("2026-11-29T12:00:00Z");
        try (FileLockStore early = new FileLockStore(folder, "files", false, Clock.fixed(start, ZoneOffset.UTC));
                FileLockStore late =
                        new FileLockStore(folder, "files", false, Clock.fixed(start.plusSeconds(11), ZoneOffset.UTC))) {
            LockHolder holder = new LockHolder("test", "main", "");
            assertTrue(early.tryAcquire("clocked", "a", holder, Duration.ofSeconds(10))
                    .acquired());
            assertFalse(early.tryAcquire("clocked", "b", holder, Duration.ofSeconds(10))
                    .acquired());
            assertTrue(late.tryAcquire("clocked", "b", holder, Duration.ofSeconds(10))
                    .acquired());
        }
    }

    @Test
    void aReleaseBeforeTheFloorEndsTheLeaseAtTheFloorOnOneReadingOfTheHostClock() {
        // Each reading of this clock is 100 ms after the one before: a floor decided on two readings (an inspect,
        // then an extend) would end the lease 100 ms or more after acquisition + minimum hold.
        SettableClock ticking = new SettableClock(Instant.parse("2026-11-29T12:00:00Z"), Duration.ofMillis(100));
        try (FileLockStore store = new FileLockStore(folder, "files", false, ticking)) {
            LockHolder holder = new LockHolder("test", "main", "");
            Acquisition.Acquired acquired =
                    (Acquisition.Acquired) store.tryAcquire("floored", "a", holder, Duration.ofSeconds(60));
            assertTrue(store.release("floored", "a", Duration.ofSeconds(30)));
            LockEntry kept = store.inspect("floored").orElseThrow();
            assertEquals(acquired.acquiredAt().plusSeconds(30), kept.expiresAt(), "the lease ends at the floor");
            assertEquals("a", kept.owner());
            assertEquals(acquired.fence(), kept.fence());
            assertFalse(store.tryAcquire("floored", "b", holder, Duration.ofSeconds(60))
                    .acquired());
            ticking.advance(Duration.ofSeconds(30));
            assertTrue(
                    store.tryAcquire("floored", "b", holder, Duration.ofSeconds(60))
                            .acquired(),
                    "free once the host clock is past the floor");
        }
    }

    @Test
    void theJdkTryLockNeitherFailsNorClosesItsChannelWhenTheFlagIsSet() throws IOException {
        // The store relies on this: FileChannel.tryLock does not watch the interrupt flag (lock(), read() and
        // write() would close the channel), and RandomAccessFile's own I/O ignores it.
        try (RandomAccessFile file =
                new RandomAccessFile(folder.resolve("probe").toFile(), "rw")) {
            Thread.currentThread().interrupt();
            try (FileLock lock = file.getChannel().tryLock()) {
                assertTrue(lock != null && lock.isValid());
                file.write(new byte[] {1, 2, 3});
                file.setLength(2);
                file.getFD().sync();
                assertEquals(2, file.length());
                assertTrue(file.getChannel().isOpen());
            } finally {
                assertTrue(Thread.interrupted(), "the flag is still set");
            }
        }
    }

    @Test
    void interruptsArrivingDuringOperationsNeitherFailThemNorDamageRecords() throws Exception {
        LockStore store = store();
        LockHolder holder = new LockHolder("test", "main", "");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flagSetAtTheEnd = new AtomicBoolean();
        Thread worker = new Thread(() -> {
            try {
                for (int i = 0; i < 500; i++) {
                    String name = "interrupted-" + (i % 4);
                    assertTrue(store.tryAcquire(name, "owner", holder, Duration.ofSeconds(30))
                            .acquired());
                    assertTrue(store.extend(name, "owner", Duration.ofSeconds(30)));
                    assertEquals("owner", store.inspect(name).orElseThrow().owner());
                    assertTrue(store.release(name, "owner"));
                    assertTrue(store.list("interrupted-", 10).isEmpty());
                }
                flagSetAtTheEnd.set(Thread.currentThread().isInterrupted());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        worker.start();
        while (worker.isAlive()) {
            worker.interrupt();
            Thread.onSpinWait();
        }
        assertNull(failure.get(), () -> "failed under interrupts: " + failure.get());
        assertTrue(flagSetAtTheEnd.get(), "the interrupts are kept, not swallowed");
        for (int i = 0; i < 4; i++) {
            assertTrue(store.tryAcquire("interrupted-" + i, "after", holder, Duration.ofSeconds(30))
                    .acquired());
        }
        assertEquals(4, store.list("interrupted-", 10).size(), "every record is intact");
    }

    @Test
    void providerBuildsFromSettingsAndNamesBadKeys() {
        LockRegistry registry = LockRegistry.builder()
                .store(
                        "files",
                        "file",
                        Map.of("directory", folder.resolve("configured").toString(), "prefix", "shop:"))
                .build();
        try (registry) {
            assertEquals("shop:x", registry.lock("x", 10).name());
            assertTrue(registry.lock("x", 10).get());
        }
        LockConfigurationException missing = assertThrows(
                LockConfigurationException.class, () -> LockRegistry.builder().store("files", "file", Map.of()));
        assertEquals("directory", missing.key().orElseThrow());
        assertTrue(missing.getMessage().contains("exclusive.store.files.directory"), missing.getMessage());
        LockConfigurationException typo = assertThrows(
                LockConfigurationException.class,
                () -> LockRegistry.builder().store("files", "file", Map.of("directry", "/tmp")));
        assertEquals("directry", typo.key().orElseThrow());
        LockConfigurationException fsync = assertThrows(
                LockConfigurationException.class,
                () -> LockRegistry.builder()
                        .store("files", "file", Map.of("directory", folder.toString(), "fsync", "yes")));
        assertEquals("fsync", fsync.key().orElseThrow());
        LockConfigurationException retention = assertThrows(
                LockConfigurationException.class,
                () -> LockRegistry.builder()
                        .store("files", "file", Map.of("directory", folder.toString(), "retention", "10s")));
        assertEquals("retention", retention.key().orElseThrow());
        assertTrue(retention.getMessage().contains("exclusive.store.files.retention"), retention.getMessage());
        LockRegistry.builder()
                .store("files", "file", Map.of("directory", folder.toString(), "retention", "2h", "timeout", "500ms"))
                .build()
                .close();
    }

    @Test
    void unwritableFolderFailsAtCreation() throws IOException {
        Path file = Files.writeString(folder.resolve("not-a-folder"), "x");
        LockConfigurationException e =
                assertThrows(LockConfigurationException.class, () -> new FileLockStore(file.resolve("locks")));
        assertEquals("directory", e.key().orElseThrow());
    }
    /**
     * Another process removes an idle lock file and makes it again (its cleanup, then an acquisition) while this one
     * lists and inspects: a file gone when opened and back when checked is read again, never an unavailable folder.
     * Seen once in a full build as {@code FileNotFoundException} from {@code list} in 9,641 calls.
     */
    @Test
    void aFileRemovedAndMadeAgainByAnotherProcessWhileListedIsReadAgain() throws Exception {
        FileLockStore files = new FileLockStore(folder);
        try (LockRegistry registry =
                LockRegistry.builder().store("files", files).build()) {
            Lock lock = registry.lock("raced", Duration.ofSeconds(30));
            assertTrue(lock.get());
            assertTrue(lock.release());
        }
        Path file;
        try (Stream<Path> lockFiles = Files.list(folder)) {
            file = lockFiles
                    .filter(path -> path.toString().endsWith(".lock"))
                    .findFirst()
                    .orElseThrow();
        }
        AtomicBoolean racing = new AtomicBoolean(true);
        Thread otherProcess = new Thread(() -> {
            try {
                while (racing.get()) {
                    Files.deleteIfExists(file);
                    Files.write(file, new byte[0]);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        otherProcess.start();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        int calls = 0;
        try {
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < end && failure.get() == null) {
                try {
                    files.list("", 10);
                    files.inspect("raced");
                    calls += 2;
                } catch (RuntimeException e) {
                    failure.set(e);
                }
            }
        } finally {
            racing.set(false);
            otherProcess.join();
        }
        int made = calls;
        assertNull(failure.get(), () -> "after " + made + " calls: " + failure.get());
        assertTrue(calls > 0);
    }
}

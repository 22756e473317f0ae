package dev.exclusive.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The file store removes the files of names nobody used for longer than its retention, and fences never go back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileLockStoreRetentionTest {

    private static final LockHolder HOLDER = new LockHolder("test", "main", "");
    private static final Duration RETENTION = Duration.ofHours(24);

    @TempDir
    Path folder;

    private final SettableClock clock = new SettableClock(Instant.parse("2026-11-30T12:00:00Z"));
    private FileLockStore store;

    private FileLockStore store(Duration retention) {
        store = new FileLockStore(folder, "files", false, clock, retention, Duration.ofSeconds(5));
        return store;
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void namesIdlePastTheRetentionAreRemovedAndLiveOrRecentOnesKept() {
        FileLockStore files = store(RETENTION);
        acquire(files, "released-long-ago", Duration.ofSeconds(30));
        assertTrue(files.release("released-long-ago", "owner"));
        acquire(files, "expired-long-ago", Duration.ofSeconds(1));
        acquire(files, "held-for-two-days", Duration.ofDays(2));
        advance(files, Duration.ofHours(23));
        acquire(files, "released-an-hour-ago", Duration.ofSeconds(30));
        assertTrue(files.release("released-an-hour-ago", "owner"));
        acquire(files, "expired-an-hour-ago", Duration.ofSeconds(1));
        advance(files, Duration.ofHours(2));

        assertEquals(2, files.cleanUp());

        assertFalse(Files.exists(files.fileOf("released-long-ago")));
        assertFalse(Files.exists(files.fileOf("expired-long-ago")));
        assertTrue(Files.exists(files.fileOf("held-for-two-days")));
        assertTrue(files.inspect("held-for-two-days").isPresent(), "a live lock is never removed");
        assertTrue(Files.exists(files.fileOf("released-an-hour-ago")), "idle since its release, not its acquisition");
        assertTrue(Files.exists(files.fileOf("expired-an-hour-ago")));
        assertEquals(0, files.cleanUp(), "nothing more is idle");
    }

    @Test
    void fencesKeepGrowingAfterANamesFileIsRemoved() {
        FileLockStore files = store(RETENTION);
        long last = 0;
        for (int i = 0; i < 100; i++) { // faster than the clock, which stands still
            last = acquire(files, "fenced", Duration.ofSeconds(30));
            assertTrue(files.release("fenced", "owner"));
        }
        advance(files, RETENTION.plusSeconds(1));
        assertEquals(1, files.cleanUp());
        assertFalse(Files.exists(files.fileOf("fenced")));

        long afterRemoval = acquire(files, "fenced", Duration.ofSeconds(30));
        assertTrue(afterRemoval > last, afterRemoval + " after removal, " + last + " before");
        assertTrue(files.release("fenced", "owner"));
        assertTrue(acquire(files, "fenced", Duration.ofSeconds(30)) > afterRemoval);
    }

    @Test
    void onlyAcquireCreatesFiles() throws IOException {
        FileLockStore files = store(RETENTION);
        assertTrue(files.inspect("never").isEmpty());
        assertFalse(files.release("never", "owner"));
        assertFalse(files.extend("never", "owner", Duration.ofSeconds(1)));
        assertFalse(files.forceRelease("never"));
        assertTrue(files.list("", 10).isEmpty());
        assertEquals(List.of(), lockFiles());
    }

    @Test
    void cleanupStartsByItselfAfterAcquisitionsAtMostOncePerInterval() {
        FileLockStore files = store(Duration.ofHours(1)); // runs at most every 6 minutes
        acquire(files, "first", Duration.ofSeconds(30)); // the first acquisition starts one
        assertEquals(1, files.cleanUpsStarted());
        awaitNoCleanUpRunning(files);
        assertTrue(files.release("first", "owner"));

        clock.advance(Duration.ofMinutes(59));
        acquire(files, "trigger", Duration.ofSeconds(30)); // "first" is not idle for an hour yet
        assertEquals(2, files.cleanUpsStarted());
        awaitNoCleanUpRunning(files);
        assertTrue(Files.exists(files.fileOf("first")));

        clock.advance(Duration.ofMinutes(2));
        acquire(files, "too-soon", Duration.ofSeconds(30));
        assertEquals(2, files.cleanUpsStarted(), "two minutes after the last run is too soon");
        assertTrue(Files.exists(files.fileOf("first")));

        clock.advance(Duration.ofMinutes(5));
        acquire(files, "due", Duration.ofSeconds(30));
        assertEquals(3, files.cleanUpsStarted());
        awaitNoCleanUpRunning(files);
        assertFalse(Files.exists(files.fileOf("first")), "idle for over an hour, removed in the background");
    }

    /**
     * The cleanup runs on a thread of the factory the store was configured with: inside a Jakarta EE server, the
     * container's {@code ManagedThreadFactory}, as lock-cdi passes it. Before, the provider ignored the factory and
     * the cleanup started a thread of its own from whichever thread acquired.
     */
    @Test
    void theCleanupRunsOnAThreadOfTheConfiguredFactory() throws InterruptedException {
        List<String> made = new CopyOnWriteArrayList<>();
        ThreadFactory container = task -> {
            Thread thread = new Thread(task);
            made.add(thread.getName());
            return thread;
        };
        store = (FileLockStore)
                new FileLockStoreProvider().create("files", Map.of("directory", folder.toString()), container);

        acquire(store, "first", Duration.ofSeconds(30)); // the first acquisition clears what earlier runs left
        store.close(); // waits for the cleanup's thread

        assertEquals(1, store.cleanUpsStarted(), "one cleanup ran");
        assertEquals(1, made.size(), "on a thread of the configured factory: " + made);
        assertFalse(store.cleanUpRunning(), "and it ended with the store");
    }

    @Test
    void aTombstoneLeftByARemoverThatDiedIsClearedByTheNextOperation() throws IOException {
        FileLockStore files = store(RETENTION);
        long before = acquire(files, "stuck", Duration.ofSeconds(30));
        assertTrue(files.release("stuck", "owner"));
        awaitNoCleanUpRunning(files);
        Files.write(files.fileOf("stuck"), FileRecord.tombstone()); // written, then the remover was killed

        assertTrue(files.inspect("stuck").isEmpty());
        assertFalse(files.release("stuck", "owner"));
        clock.advance(Duration.ofMillis(1));
        assertTrue(acquire(files, "stuck", Duration.ofSeconds(30)) > before);
        assertTrue(files.inspect("stuck").isPresent());
    }

    /** Moves the clock once no background cleanup runs: one started earlier must not see the new time. */
    private void advance(FileLockStore files, Duration by) {
        awaitNoCleanUpRunning(files);
        clock.advance(by);
    }

    private static long acquire(FileLockStore files, String name, Duration ttl) {
        Acquisition acquisition = files.tryAcquire(name, "owner", HOLDER, ttl);
        assertTrue(acquisition instanceof Acquisition.Acquired, name + ": " + acquisition);
        return ((Acquisition.Acquired) acquisition).fence();
    }

    private List<Path> lockFiles() throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.toList();
        }
    }

    private static void awaitNoCleanUpRunning(FileLockStore files) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (files.cleanUpRunning()) {
            assertTrue(System.nanoTime() - deadline < 0, "the cleanup did not finish in 10 s");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}

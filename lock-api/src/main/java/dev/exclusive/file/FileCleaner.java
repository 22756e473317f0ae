package dev.exclusive.file;

import dev.exclusive.file.LockFiles.Change;
import dev.exclusive.spi.NamedThreads;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The retention cleanup of one {@link FileLockStore}: removes the files of names whose lock has been free or
 * expired for longer than the retention, each under its OS lock and through a tombstone ({@link LockFiles}), and
 * starts itself in the background at most once per {@code max(retention / 10, 1 minute)}, one run at a time, so
 * that acquisitions pay one clock read for it.
 */
final class FileCleaner {

    private static final Logger LOG = Logger.getLogger(FileLockStore.class.getName());

    private final Path directory;
    private final String glob;
    private final String storeName;
    private final LockFiles files;
    private final Clock clock;
    private final long retentionMillis;
    private final long everyMillis;
    private final AtomicLong nextRun;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong started = new AtomicLong();
    private volatile boolean closed;
    /** Where the cleanup's thread comes from: inside a server, the container's {@code ManagedThreadFactory}. */
    private final ThreadFactory threads;

    private volatile Thread current;

    FileCleaner(
            Path directory,
            String glob,
            String storeName,
            LockFiles files,
            Clock clock,
            Duration retention,
            ThreadFactory threads) {
        this.threads = NamedThreads.of(threads, "exclusive-file-cleanup-" + storeName);
        this.directory = directory;
        this.glob = glob;
        this.storeName = storeName;
        this.files = files;
        this.clock = clock;
        this.retentionMillis = retention.toMillis();
        this.everyMillis = Math.max(retentionMillis / 10, Duration.ofMinutes(1).toMillis());
        this.nextRun = new AtomicLong(clock.millis()); // the first acquisition clears what earlier runs left
    }

    /**
     * Removes every file idle past the retention, and every empty file; skips files in use right now.
     *
     * @return how many files were removed
     * @throws IOException if the folder cannot be listed
     */
    int cleanUp() throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(directory, glob)) {
            for (Path file : paths) {
                if (closed) {
                    break;
                }
                long idleBefore = clock.millis() - retentionMillis;
                try {
                    if (files.updateIfFree(
                            file,
                            current -> current == null || current.idleSince() < idleBefore
                                    ? Change.remove(true)
                                    : Change.answer(false),
                            false)) {
                        removed++;
                    }
                } catch (IOException e) {
                    LOG.log(Level.FINE, e, () -> "Store '" + storeName + "': could not clean up " + file);
                }
            }
        }
        return removed;
    }

    /**
     * Starts {@link #cleanUp()} on a thread of the store's factory if it is due by the clock and none is running; a
     * factory that refuses (a container shutting down) leaves it to the next turn.
     */
    void startIfDue() {
        long due = nextRun.get();
        long now = clock.millis();
        if (now < due
                || closed
                || !nextRun.compareAndSet(due, now + everyMillis)
                || !running.compareAndSet(false, true)) {
            return;
        }
        Thread cleaner;
        try {
            cleaner = threads.newThread(this::runInBackground);
        } catch (RuntimeException refused) {
            running.set(false);
            LOG.log(Level.FINE, refused, () -> "Store '" + storeName + "': no thread for the cleanup now");
            return;
        }
        started.incrementAndGet();
        current = cleaner;
        cleaner.start();
    }

    private void runInBackground() {
        try {
            cleanUp();
        } catch (IOException | RuntimeException e) {
            if (!closed) { // a closed store's folder may be gone
                LOG.log(
                        Level.WARNING,
                        e,
                        () -> "Store '" + storeName + "': cleanup of lock folder '" + directory
                                + "' failed; it is tried again at the next turn");
            }
        } finally {
            running.set(false);
        }
    }

    /** Stops a running cleanup at its next file, waits up to 2 s for its thread to end, and starts no other. */
    void close() {
        closed = true;
        Thread running = current;
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    long started() {
        return started.get();
    }

    boolean running() {
        return running.get();
    }
}

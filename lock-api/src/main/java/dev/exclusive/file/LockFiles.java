package dev.exclusive.file;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The OS-lock section of {@link FileLockStore}: opens a lock file, takes this JVM's stripe lock and the file's OS
 * lock, reads the record, runs a decision, writes, and closes. The store's class javadoc says why each step is
 * done the way it is; in short:
 * <ul>
 * <li>Nothing waits in the kernel: the OS lock is taken with {@link FileChannel#tryLock} in a loop (spin, yield,
 * then park from 10 µs up to 1 ms) until the timeout, so two JVMs can never wait for each other's locks in
 * {@code fcntl(F_SETLKW)}, which the kernel reports as a deadlock ({@code EDEADLK}).</li>
 * <li>No interruptible call: I/O goes through {@link RandomAccessFile}; the channel is used only for
 * {@code tryLock}. The interrupt flag is cleared while parked and set again before returning.</li>
 * <li>Every open of a file in this JVM happens under its stripe lock, because closing any descriptor of a file
 * drops every {@code fcntl} lock the process holds on it.</li>
 * </ul>
 */
final class LockFiles {

    private static final int STRIPES = 256;
    private static final ReentrantLock[] STRIPE_LOCKS = new ReentrantLock[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            STRIPE_LOCKS[i] = new ReentrantLock();
        }
    }

    /** What a section decided: a record to write ({@code null}: none) and the answer. */
    record Change<T>(FileRecord write, T answer) {

        static <T> Change<T> answer(T answer) {
            return new Change<>(null, answer);
        }

        static <T> Change<T> write(FileRecord record, T answer) {
            return new Change<>(record, answer);
        }
    }

    /** A decision on a file's record ({@code null}: no file, or an empty one) made under its OS lock. */
    interface Section<T> {
        Change<T> apply(FileRecord current) throws IOException;
    }

    private final boolean fsync;
    private final Duration timeout;

    LockFiles(boolean fsync, Duration timeout) {
        this.fsync = fsync;
        this.timeout = timeout;
    }

    /**
     * Runs {@code section} on {@code file} under its locks, waiting for them up to the timeout: under an
     * exclusive OS lock, creating the file if missing, or, if {@code shared}, under a shared one, reading only.
     *
     * @throws IOException if the file cannot be used, or its locks stay taken for the whole timeout
     */
    <T> T update(Path file, boolean shared, Section<T> section) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ReentrantLock stripe = STRIPE_LOCKS[Math.floorMod(file.hashCode(), STRIPES)];
        if (!lockStripe(stripe, deadline)) {
            throw new IOException("other threads of this JVM kept lock file '" + file + "' for " + timeout);
        }
        try {
            RandomAccessFile opened;
            try {
                opened = new RandomAccessFile(file.toFile(), shared ? "r" : "rw");
            } catch (FileNotFoundException e) {
                if (shared && !Files.exists(file)) {
                    return readOnly(section.apply(null), file);
                }
                throw e;
            }
            try (RandomAccessFile raf = opened) {
                osLock(raf.getChannel(), shared, deadline, file);
                byte[] content = read(raf);
                Change<T> change = section.apply(FileRecord.decode(content));
                if (change.write() != null) {
                    write(raf, change.write().encode(), content.length);
                }
                return change.answer();
            }
        } finally {
            stripe.unlock();
        }
    }

    private static <T> T readOnly(Change<T> change, Path file) {
        if (change.write() != null) {
            throw new IllegalStateException("a shared section may not write: " + file);
        }
        return change.answer();
    }

    private static byte[] read(RandomAccessFile raf) throws IOException {
        long length = raf.length();
        if (length > 64 * 1024) {
            throw new IOException("damaged lock file (" + length + " bytes)");
        }
        byte[] content = new byte[(int) length];
        raf.readFully(content);
        return content;
    }

    private void write(RandomAccessFile raf, byte[] content, int previousLength) throws IOException {
        raf.seek(0);
        raf.write(content);
        if (content.length < previousLength) {
            raf.setLength(content.length);
        }
        if (fsync) {
            raf.getFD().sync();
        }
    }

    /**
     * The OS lock on the whole file. {@code tryLock} is the one channel call that is safe with the interrupt flag
     * set: unlike {@code lock()}, {@code read()} or {@code write()}, it does not close the channel on interrupt.
     */
    private FileLock osLock(FileChannel channel, boolean shared, long deadline, Path file) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            for (int round = 0; ; round++) {
                FileLock lock = channel.tryLock(0, Long.MAX_VALUE, shared);
                if (lock != null) {
                    return lock;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("another process kept the OS lock on '" + file + "' for " + timeout
                            + "; is a process that uses the folder stopped or hung?");
                }
                if (round < 8) {
                    Thread.onSpinWait();
                } else if (round < 16) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(
                            Math.min(left, TimeUnit.MICROSECONDS.toNanos(10L << Math.min(round - 16, 7))));
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for the stripe until the deadline, parked; an interrupt is kept for later, not obeyed. */
    private static boolean lockStripe(ReentrantLock stripe, long deadline) {
        if (stripe.tryLock()) {
            return true;
        }
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return stripe.tryLock(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

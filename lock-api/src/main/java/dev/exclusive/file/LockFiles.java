package dev.exclusive.file;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The OS-lock section of {@link FileLockStore}: opens a lock file, takes this JVM's stripe lock and the file's OS
 * lock, reads the record, runs a decision, writes or removes, and closes. The store's class javadoc says why each
 * step is done the way it is; in short:
 * <ul>
 * <li>Nothing waits in the kernel: the OS lock is taken with {@link FileChannel#tryLock} in a loop (spin, yield,
 * then park from 10 µs up to 1 ms) until the timeout, so two JVMs can never wait for each other's locks in
 * {@code fcntl(F_SETLKW)}, which the kernel reports as a deadlock ({@code EDEADLK}).</li>
 * <li>No interruptible call: I/O goes through {@link RandomAccessFile}; the channel is used only for
 * {@code tryLock}. The interrupt flag is cleared while parked and set again before returning.</li>
 * <li>Every open of a file in this JVM happens under its stripe lock and its JVM-wide guard (shared by every copy
 * of this class, whatever loaded it), because closing any descriptor of a file drops every {@code fcntl} lock the
 * process holds on it.</li>
 * <li>A file holding a tombstone was removed by cleanup after this call opened it: the call opens the path again.
 * A tombstone still at the path (its remover died between writing it and unlinking) is unlinked here.</li>
 * </ul>
 */
final class LockFiles {

    private static final int STRIPES = 256;
    private static final ReentrantLock[] STRIPE_LOCKS = new ReentrantLock[STRIPES];
    /**
     * One monitor per stripe for the whole JVM, whichever class loader loaded this class: an interned string is
     * one object per JVM. Two applications of one server that each bundle lock-api have stripe locks of their own,
     * which do not see each other; without this, one's open and close of a file dropped the other's OS lock in the
     * middle of its change. Taken inside the stripe lock, so only threads of different loaders ever contend for it.
     */
    private static final Object[] JVM_GUARDS = new Object[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            STRIPE_LOCKS[i] = new ReentrantLock();
            JVM_GUARDS[i] = ("dev.exclusive.file.LockFiles#stripe-" + i).intern();
        }
    }

    /** How a section opens its file. */
    enum Access {
        /** read and write, creating the file if missing (acquire) */
        CREATE,
        /** read and write a file that exists; a missing one is a free lock that stays missing */
        WRITE,
        /** read only, under a shared OS lock (inspect, list) */
        READ
    }

    /** What a section decided: a record to write ({@code null}: none), whether to remove the file, the answer. */
    record Change<T>(FileRecord write, boolean remove, T answer) {

        static <T> Change<T> answer(T answer) {
            return new Change<>(null, false, answer);
        }

        static <T> Change<T> write(FileRecord record, T answer) {
            return new Change<>(record, false, answer);
        }

        static <T> Change<T> remove(T answer) {
            return new Change<>(null, true, answer);
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
     * Runs {@code section} on {@code file} under its locks, waiting for them up to the timeout.
     *
     * @throws IOException if the file cannot be used, or its locks stay taken for the whole timeout
     */
    <T> T update(Path file, Access access, Section<T> section) throws IOException {
        return run(file, access, true, section, null);
    }

    /**
     * Runs {@code section} on an existing {@code file} only if its locks are free right now (cleanup: a file in use
     * is not idle). The section sees {@code null} for an empty file.
     *
     * @return the section's answer, or {@code skipped} if the file is in use or gone
     */
    <T> T updateIfFree(Path file, Section<T> section, T skipped) throws IOException {
        return run(file, Access.WRITE, false, section, skipped);
    }

    /** Work on the whole content of a plain file that is never removed, under its OS lock. */
    interface RawSection<T> {
        T apply(RandomAccessFile file) throws IOException;
    }

    /**
     * Runs {@code section} on a plain {@code file} (created if missing) under this JVM's stripe lock and the file's
     * OS lock, exclusive or shared, waiting for them up to the timeout: the same turn-taking as a lock file, for a
     * file that is never removed (so no tombstones) and may be larger than a record (the audit trail).
     *
     * @throws IOException if the file cannot be used, or its locks stay taken for the whole timeout
     */
    <T> T withFile(Path file, boolean shared, RawSection<T> section) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int index = Math.floorMod(file.hashCode(), STRIPES);
        ReentrantLock stripe = STRIPE_LOCKS[index];
        if (!lockStripe(stripe, deadline)) {
            throw new IOException("other threads of this JVM kept file '" + file + "' for " + timeout);
        }
        try {
            synchronized (JVM_GUARDS[index]) {
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    osLock(raf.getChannel(), shared, true, deadline, file);
                    return section.apply(raf);
                }
            }
        } finally {
            stripe.unlock();
        }
    }

    /** Forces what was written to {@code raf} to disk, if this store was configured to. */
    void synced(RandomAccessFile raf) throws IOException {
        if (fsync) {
            raf.getFD().sync();
        }
    }

    private <T> T run(Path file, Access access, boolean wait, Section<T> section, T skipped) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int index = Math.floorMod(file.hashCode(), STRIPES);
        ReentrantLock stripe = STRIPE_LOCKS[index];
        if (!(wait ? lockStripe(stripe, deadline) : stripe.tryLock())) {
            if (wait) {
                throw new IOException("other threads of this JVM kept lock file '" + file + "' for " + timeout);
            }
            return skipped;
        }
        try {
            synchronized (JVM_GUARDS[index]) {
                return runGuarded(file, access, wait, section, skipped, deadline);
            }
        } finally {
            stripe.unlock();
        }
    }

    /** {@link #run}'s part under the stripe lock and the JVM's guard: open, OS-lock, read, change, close. */
    private <T> T runGuarded(Path file, Access access, boolean wait, Section<T> section, T skipped, long deadline)
            throws IOException {
        for (int attempt = 0; ; attempt++) {
            if (access != Access.CREATE && missing(file)) {
                return wait ? readOnly(section.apply(null), file) : skipped;
            }
            // From the second attempt on, learn which inode was opened, to tell a stale tombstone from a stuck one.
            Object key = attempt == 0 ? null : keyOf(file);
            RandomAccessFile opened;
            try {
                opened = new RandomAccessFile(file.toFile(), access == Access.READ ? "r" : "rw");
            } catch (FileNotFoundException e) {
                if (access != Access.CREATE && (missing(file) || openAgain(file, access, deadline))) {
                    continue; // removed since the check (and maybe made again): the next round looks anew
                }
                throw e;
            }
            try (RandomAccessFile raf = opened) {
                if (key != null && !key.equals(keyOf(file))) {
                    key = null;
                }
                FileLock lock = osLock(raf.getChannel(), access == Access.READ, wait, deadline, file);
                if (lock == null) {
                    return skipped;
                }
                byte[] content = read(raf);
                if (FileRecord.isTombstone(content)) {
                    boolean stuck = key != null && key.equals(keyOf(file)); // the path names what this call holds
                    if (stuck && access == Access.READ) {
                        return readOnly(section.apply(null), file);
                    } else if (stuck) {
                        Files.delete(file);
                    } else if (!wait && attempt > 0) {
                        return skipped;
                    } else if (System.nanoTime() - deadline > 0) {
                        throw new IOException("lock file '" + file + "' still held the tombstone of an unfinished"
                                + " removal after " + timeout + "; delete the file while no process uses the"
                                + " folder");
                    }
                    continue;
                }
                Change<T> change = section.apply(FileRecord.decode(content));
                if (change.remove()) {
                    remove(raf, file, content);
                } else if (change.write() != null) {
                    write(raf, change.write().encode(), content.length);
                }
                return change.answer();
            }
        }
    }

    /**
     * @return whether opening {@code file} again is right, within the timeout: it could not be opened, yet it is there
     *     now and opens for {@code access}, or it is gone again (another process's cleanup removed it and an
     *     acquisition made it again, maybe more than once, in between); not when it exists but may not be opened
     */
    private static boolean openAgain(Path file, Access access, long deadline) {
        if (System.nanoTime() - deadline >= 0) {
            return false;
        }
        Set<OpenOption> options = access == Access.READ
                ? Set.of(StandardOpenOption.READ)
                : Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
        try (FileChannel probe = FileChannel.open(file, options)) {
            return true;
        } catch (NoSuchFileException gone) {
            return true;
        } catch (IOException notAllowed) {
            return false;
        }
    }

    /**
     * @return whether {@code file} is missing from a folder that is there
     * @throws NoSuchFileException if the folder itself is gone: that is a store failure, not a free lock
     */
    private static boolean missing(Path file) throws NoSuchFileException {
        if (Files.exists(file)) {
            return false;
        }
        if (!Files.isDirectory(file.getParent())) {
            throw new NoSuchFileException(file.getParent().toString(), null, "the lock folder is gone");
        }
        return true;
    }

    private static <T> T readOnly(Change<T> change, Path file) {
        if (change.write() != null || change.remove()) {
            throw new IllegalStateException("a section may not write a missing file: " + file);
        }
        return change.answer();
    }

    /** Tombstone first, then unlink: whoever opened the file before the unlink finds the tombstone and reopens. */
    private void remove(RandomAccessFile raf, Path file, byte[] content) throws IOException {
        write(raf, FileRecord.tombstone(), content.length);
        try {
            Files.delete(file);
        } catch (IOException e) {
            write(raf, content, FileRecord.tombstone().length); // still at the path: keep it a lock file
            throw e;
        }
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
     *
     * @return the lock, or {@code null} if {@code wait} is false and another process holds it
     */
    private FileLock osLock(FileChannel channel, boolean shared, boolean wait, long deadline, Path file)
            throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            for (int round = 0; ; round++) {
                FileLock lock = channel.tryLock(0, Long.MAX_VALUE, shared);
                if (lock != null || !wait) {
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

    /** @return the file's identity (device and inode on POSIX), or {@code null} if missing or unknown */
    private static Object keyOf(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null; // missing, or unreadable: either way not known to be the same file
        }
    }
}

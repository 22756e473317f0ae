package dev.exclusive.file;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.file.LockFiles.Access;
import dev.exclusive.file.LockFiles.Change;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * Locks shared by the processes of one host through a folder they can all write.
 *
 * <p><b>Layout.</b> Each lock name has one file, {@code <sha-256 of the name in hex>.lock}: the name never
 * becomes a path, so {@code ../x}, {@code /etc/passwd} or {@code C:\x} stay inside the folder, and every valid
 * name fits the file system's limits. The file holds a small record ({@link FileRecord}): the name, the last fence
 * granted, and, while held, the owner, holder, acquisition and expiry times; once released, the release time.
 * Times are the host wall clock in milliseconds.
 *
 * <p><b>Algorithm.</b> Every operation on a name runs in one OS-lock section ({@link LockFiles}):
 * <ol>
 * <li>take this JVM's lock for the file's stripe (one of 256, by path): the OS lock below belongs to the whole
 * process, so threads of one JVM must be kept apart first, and every open of the file in this JVM must happen
 * under it, because closing any descriptor of a file drops the process's {@code fcntl} locks on it;</li>
 * <li>open the file (acquire creates it; every other change of a missing file answers {@code false} and creates
 * nothing; inspect and list only read) and take its OS lock, exclusive or, to read, shared;</li>
 * <li>read the record; if it is a tombstone, cleanup removed the file after step 2 opened it: close and go back
 * to step 2;</li>
 * <li>decide and write the record back:
 * <ul>
 * <li>acquire: if free or expired by the host clock, write holder, times and fence {@code max(last fence + 1,
 * host clock in microseconds)}; if held by the same owner (a retried attempt), renew its expiry to ttl from now
 * and answer acquired with its fence and acquisition time; else answer busy;</li>
 * <li>release: if held by the owner and not expired, mark it free, keeping the fence, with the release time; then
 * signal this JVM's waiters;</li>
 * <li>extend: if held by the owner and not expired, write the new expiry;</li>
 * <li>release with a minimum hold: if held by the owner and not expired, take the floor, the end of a lease of
 * the minimum hold from the acquisition time in the record (rounded up to whole milliseconds). If the host clock
 * is past it, mark the lock free and signal, as release does; if not, set the expiry to {@code min(expiry,
 * floor)}, keeping owner, holder and fence, and signal: the lock frees itself at the floor, and a waiter of this JVM
 * reads the new expiry instead of sleeping until the old one;</li>
 * <li>force-release: mark it free whoever holds it; then signal.</li>
 * </ul></li>
 * <li>close the file, which releases the OS lock, then the stripe.</li>
 * </ol>
 * <b>Why it is atomic:</b> every read-decide-write of a file happens under its exclusive OS lock, which every
 * process honours, and a file is only ever removed under that lock after its content was replaced by a tombstone,
 * so a decision is never taken on a file that is no longer the name's file. The OS lock is held only for that
 * read-modify-write, never for the lease, so a holder that dies (even by SIGKILL) leaves a record that frees
 * itself at its expiry and not before. With {@code fsync} on, every write is forced to disk.
 *
 * <p><b>No waiting in the kernel.</b> The OS lock is taken with {@link FileChannel#tryLock} in a loop (spin,
 * yield, then park from 10 µs to about 1 ms) for at most the store's timeout (default 5 s), after which the call
 * fails with {@link LockStoreUnavailableException} naming the folder and the file. A blocking {@code lock()}
 * ({@code fcntl(F_SETLKW)}) let the kernel see a deadlock where there was none ({@code EDEADLK}, "Resource deadlock
 * avoided"): {@code fcntl} locks belong to processes, so JVM A holding file X while another of its threads waited
 * for Y, and JVM B doing the reverse, formed a cycle between the two processes. A thread that never waits in the
 * kernel is never part of such a cycle. The other cure, one JVM-wide guard around every OS-lock section, makes
 * every lock-file operation of a JVM wait for every other, whatever their names, and still needs a
 * non-interruptible way to wait: measured with 4 processes of 8 threads on 8 names (bench {@code FileStoreLoad}),
 * it granted 0.3 to 0.5 times the acquisitions per second of the {@code tryLock} loop; with one thread the two
 * are equal.
 *
 * <p><b>Interrupts.</b> Every operation works with the thread's interrupt flag set and leaves it set (also when
 * an interrupt arrives during the call): an interrupted thread still releases what it holds. A
 * {@link FileChannel} is an interruptible channel, whose {@code read}, {@code write}, {@code size} and
 * {@code lock} close it when the flag is set ({@code ClosedByInterruptException}); so every read, write,
 * truncation and {@code fsync} goes through {@link java.io.RandomAccessFile}, whose native calls ignore the flag,
 * and the channel serves only for {@code tryLock}, which (JDK 17 {@code FileChannelImpl.tryLock}) does not watch
 * the flag either. The flag is cleared only while the thread parks between attempts, and set again. Clearing it
 * around channel I/O instead was rejected: an interrupt arriving in the middle of a write would still close the
 * channel between the write and the truncation and leave a damaged record.
 *
 * <p><b>Fences and retention.</b> A fence is {@code max(last fence + 1, host clock in microseconds)}, so it grows
 * with every acquisition and is never below the clock's microseconds at its grant. Files of names whose lock has
 * been free or expired for longer than the retention (default 24 hours) are removed by {@link #cleanUp()}, which
 * an acquisition starts in the background at most once per {@code max(retention / 10, 1 minute)}, on one thread
 * at a time; a file whose OS lock is taken at that moment is left for the next run. A removed name starts again
 * from the clock, which has moved past every fence it granted, so fences never go back, unless the host clock is
 * set back by more than the time since the name's last acquisition (keep the retention longer than any clock
 * step). Removal writes a tombstone under the exclusive OS lock before unlinking, and every operation that finds
 * a tombstone opens the path again (step 3): a process that opened the old file just before it was removed can
 * never take a lock on it while another takes one on the new file. A tombstone left at the path by a process that
 * died before unlinking is unlinked by the next operation that finds it there.
 *
 * <p><b>Waiting:</b> threads of this JVM are woken by a local signal when any store instance on the same folder
 * releases; releases by other processes are seen by polling with a short backoff (2 to 50 ms).
 *
 * <p><b>Audit trail:</b> {@code audit.log} in the folder, one record per line, appended under the file's
 * exclusive OS lock the same way, stamped with the host clock and kept within the store's {@link AuditLimits}
 * (see {@link FileAuditTrail}).
 */
public final class FileLockStore implements LockStore {

    /** The retention when none is given: how long a name's file outlives its last use. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

    /** The timeout when none is given: the longest an operation waits for a lock file's OS lock. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final ConcurrentHashMap<Path, LocalSignals> SIGNALS = new ConcurrentHashMap<>();
    private static final String SUFFIX = ".lock";

    private final Path directory;
    private final String storeName;
    private final Clock clock;
    private final LocalSignals signals;
    private final LockFiles files;
    private final FileCleaner cleaner;
    private final FileAuditTrail auditTrail;

    /**
     * A store on the host's clock, without fsync, with the default retention and timeout.
     *
     * @param directory the shared folder; created if missing
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory) {
        this(directory, "file", false, Clock.systemUTC());
    }

    /**
     * A store with the default retention and timeout.
     *
     * @param directory the shared folder; created if missing
     * @param storeName the configured store's name, for messages
     * @param fsync     whether to force every write to disk
     * @param clock     the host clock (a test may skew it)
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory, String storeName, boolean fsync, Clock clock) {
        this(directory, storeName, fsync, clock, DEFAULT_RETENTION, DEFAULT_TIMEOUT);
    }

    /**
     * @param directory the shared folder; created if missing
     * @param storeName the configured store's name, for messages
     * @param fsync     whether to force every write to disk
     * @param clock     the host clock (a test may skew it); it decides expiry, fences and cleanup
     * @param retention how long a name's file is kept after its lock was last released or expired; positive
     * @param timeout   the longest an operation waits for a lock file's OS lock; positive
     * @throws LockConfigurationException if the folder cannot be created or written
     * @throws IllegalArgumentException   if {@code retention} or {@code timeout} is not positive
     */
    public FileLockStore(
            Path directory, String storeName, boolean fsync, Clock clock, Duration retention, Duration timeout) {
        this(directory, storeName, fsync, clock, retention, timeout, AuditLimits.DEFAULT);
    }

    /**
     * @param directory   the shared folder; created if missing
     * @param storeName   the configured store's name, for messages
     * @param fsync       whether to force every write to disk
     * @param clock       the host clock (a test may skew it); it decides expiry, fences, cleanup and audit times
     * @param retention   how long a name's file is kept after its lock was last released or expired; positive
     * @param timeout     the longest an operation waits for a lock file's OS lock; positive
     * @param auditLimits how many and how old audit records {@code audit.log} keeps
     * @throws LockConfigurationException if the folder cannot be created or written
     * @throws IllegalArgumentException   if {@code retention} or {@code timeout} is not positive
     */
    public FileLockStore(
            Path directory,
            String storeName,
            boolean fsync,
            Clock clock,
            Duration retention,
            Duration timeout,
            AuditLimits auditLimits) {
        this(directory, storeName, fsync, clock, retention, timeout, auditLimits, null);
    }

    /**
     * Like {@link #FileLockStore(Path, String, boolean, Clock, Duration, Duration, AuditLimits)}, with the factory
     * that the cleanup's thread comes from.
     *
     * @param directory   the shared folder; created if missing
     * @param storeName   the configured store's name, for messages
     * @param fsync       whether to force every write to disk
     * @param clock       the host clock (a test may skew it); it decides expiry, fences, cleanup and audit times
     * @param retention   how long a name's file is kept after its lock was last released or expired; positive
     * @param timeout     the longest an operation waits for a lock file's OS lock; positive
     * @param auditLimits how many and how old audit records {@code audit.log} keeps
     * @param threads     where the cleanup's thread comes from (inside a Jakarta EE server, the container's
     *                    {@code ManagedThreadFactory}); {@code null} for plain daemon threads
     * @throws LockConfigurationException if the folder cannot be created or written
     * @throws IllegalArgumentException   if {@code retention} or {@code timeout} is not positive
     */
    public FileLockStore(
            Path directory,
            String storeName,
            boolean fsync,
            Clock clock,
            Duration retention,
            Duration timeout,
            AuditLimits auditLimits,
            ThreadFactory threads) {
        if (retention.isNegative() || retention.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Store '" + storeName + "': retention and timeout must be positive, got "
                    + retention + " and " + timeout);
        }
        this.storeName = storeName;
        this.clock = clock;
        this.files = new LockFiles(fsync, timeout);
        try {
            Files.createDirectories(directory);
            this.directory = directory.toRealPath();
        } catch (IOException e) {
            throw new LockConfigurationException(
                    "Store '" + storeName + "': cannot create the lock folder '"
                            + directory + "' (" + e + "); set exclusive.store." + storeName
                            + ".directory to a folder every process can write",
                    storeName,
                    "directory",
                    e);
        }
        if (!Files.isWritable(this.directory)) {
            throw new LockConfigurationException(
                    "Store '" + storeName + "': the lock folder '" + this.directory
                            + "' is not writable; set exclusive.store." + storeName
                            + ".directory to a folder every process can write",
                    storeName,
                    "directory",
                    null);
        }
        this.signals = SIGNALS.computeIfAbsent(this.directory, key -> new LocalSignals());
        this.cleaner = new FileCleaner(this.directory, "*" + SUFFIX, storeName, files, clock, retention, threads);
        this.auditTrail = new FileAuditTrail(this.directory, files, clock, auditLimits);
    }

    /** @return the folder the lock files are in */
    public Path directory() {
        return directory;
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        Acquisition answer = update(name, Access.CREATE, current -> {
            Instant instant = clock.instant();
            long now = instant.toEpochMilli();
            if (current != null && current.liveAt(now)) {
                if (!current.owner().equals(owner)) {
                    return Change.answer(new Acquisition.Busy(Duration.ofMillis(current.expiresAt() + 1 - now)));
                }
                FileRecord renewed = new FileRecord(
                        name, current.fence(), owner, current.holder(), current.acquiredAt(), expiry(now, ttl), 0);
                return Change.write(renewed, acquired(renewed));
            }
            long micros = Math.multiplyExact(instant.getEpochSecond(), 1_000_000L) + instant.getNano() / 1_000;
            long fence = Math.max(current == null ? 1 : current.fence() + 1, micros);
            FileRecord next = new FileRecord(name, fence, owner, holder.encode(), now, expiry(now, ttl), 0);
            return Change.write(next, acquired(next));
        });
        cleaner.startIfDue();
        return answer;
    }

    private static Acquisition acquired(FileRecord record) {
        return new Acquisition.Acquired(
                record.fence(), Instant.ofEpochMilli(record.acquiredAt()), Instant.ofEpochMilli(record.expiresAt()));
    }

    @Override
    public boolean release(String name, String owner) {
        return free(name, owner, null);
    }

    @Override
    public boolean releaseHold(String name, String owner, long fence) {
        return free(name, owner, fence);
    }

    /**
     * One read-modify-write under the file's OS lock, on one reading of the host clock: free the lock past its
     * floor, or shorten the lease to the floor, or leave another's lock alone.
     */
    @Override
    public boolean release(String name, String owner, Duration minHold) {
        Floored outcome = update(name, Access.WRITE, current -> {
            long now = clock.millis();
            if (current == null || !current.liveAt(now) || !current.owner().equals(owner)) {
                return Change.answer(Floored.NOT_HELD);
            }
            long floor = expiry(current.acquiredAt(), minHold);
            if (floor < now) {
                return Change.write(FileRecord.free(name, current.fence(), now), Floored.RELEASED);
            }
            if (current.expiresAt() <= floor) {
                return Change.answer(Floored.KEPT);
            }
            return Change.write(
                    new FileRecord(name, current.fence(), owner, current.holder(), current.acquiredAt(), floor, 0),
                    Floored.KEPT);
        });
        if (outcome != Floored.NOT_HELD) {
            signals.signal(name); // freed, or ending sooner: a waiter reads the new expiry instead of the old one
        }
        return outcome != Floored.NOT_HELD;
    }

    /** What a release with a minimum hold did. */
    private enum Floored {
        /** the lock was free, expired or another owner's */
        NOT_HELD,
        /** the floor had passed: the lock is free */
        RELEASED,
        /** the floor is ahead: the lease now ends there, or already ended before */
        KEPT
    }

    @Override
    public boolean forceRelease(String name) {
        return free(name, null, null);
    }

    /**
     * Marks a live lock free, keeping its fence, if {@code owner} holds it ({@code null}: whoever holds it) with
     * {@code fence} ({@code null}: whichever).
     */
    private boolean free(String name, String owner, Long fence) {
        boolean released = update(name, Access.WRITE, current -> {
            long now = clock.millis();
            return current != null
                            && current.liveAt(now)
                            && (owner == null || current.owner().equals(owner))
                            && (fence == null || current.fence() == fence)
                    ? Change.write(FileRecord.free(name, current.fence(), now), true)
                    : Change.answer(false);
        });
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return update(name, Access.WRITE, current -> {
            long now = clock.millis();
            if (current == null || !current.liveAt(now) || !current.owner().equals(owner)) {
                return Change.answer(false);
            }
            return Change.write(
                    new FileRecord(
                            name, current.fence(), owner, current.holder(), current.acquiredAt(), expiry(now, ttl), 0),
                    true);
        });
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return update(name, Access.READ, current -> Change.answer(toEntry(current, clock.millis())));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        List<LockEntry> live = new ArrayList<>();
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path file : paths) {
                if (live.size() >= limit) {
                    break;
                }
                files.update(file, Access.READ, current -> Change.answer(toEntry(current, clock.millis())))
                        .filter(entry -> entry.name().startsWith(prefix))
                        .ifPresent(live::add);
            }
        } catch (IOException e) {
            throw unavailable(null, e);
        }
        return live;
    }

    /**
     * Removes the files of names whose lock has been free or expired for longer than the retention, and any
     * empty file. A file whose OS lock is taken right now is left for the next run; a live lock is never touched.
     * Acquisitions start it in the background at most once per {@code max(retention / 10, 1 minute)}; call it to
     * clean up on a schedule of your own.
     *
     * @return how many files were removed
     * @throws LockStoreUnavailableException if the folder cannot be listed
     */
    public int cleanUp() {
        try {
            return cleaner.cleanUp();
        } catch (IOException e) {
            throw unavailable(null, e);
        }
    }

    /** @return how many background cleanups acquisitions have started, for tests */
    long cleanUpsStarted() {
        return cleaner.started();
    }

    /** @return whether a background cleanup is running, for tests */
    boolean cleanUpRunning() {
        return cleaner.running();
    }

    @Override
    public void audit(AuditRecord record) {
        try {
            auditTrail.append(record);
        } catch (IOException e) {
            throw unavailable(record.lockName(), e);
        }
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        try {
            return auditTrail.read(limit);
        } catch (IOException e) {
            throw unavailable(null, e);
        }
    }

    @Override
    public WaitPolicy waitPolicy() {
        return WaitPolicy.backoff(Duration.ofMillis(2), Duration.ofMillis(50));
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        signals.await(name, maxWait, () -> true);
    }

    @Override
    public void ping() {
        if (!Files.isDirectory(directory) || !Files.isWritable(directory)) {
            throw new LockStoreUnavailableException(
                    "Lock folder '" + directory + "' is missing or not writable", null, storeName, null);
        }
    }

    /** Stops a running cleanup at its next file and starts no other. Files are opened per operation. */
    @Override
    public void close() {
        cleaner.close();
    }

    private <T> T update(String name, Access access, LockFiles.Section<T> section) {
        try {
            return files.update(fileOf(name), access, section);
        } catch (IOException e) {
            throw unavailable(name, e);
        }
    }

    /**
     * The last millisecond of a lease of {@code ttl} starting at {@code now}: the ttl rounded up to whole
     * milliseconds. The lease lasts through that millisecond ({@link FileRecord#liveAt}), because the host clock is
     * read in truncated milliseconds and the lease must not end before the end the holder estimated from the
     * instant before its request.
     */
    private static long expiry(long now, Duration ttl) {
        return now + ttl.toMillis() + (ttl.minusMillis(ttl.toMillis()).isZero() ? 0 : 1);
    }

    private static Optional<LockEntry> toEntry(FileRecord record, long now) {
        if (record == null || !record.liveAt(now)) {
            return Optional.empty();
        }
        return Optional.of(new LockEntry(
                record.name(),
                record.owner(),
                LockHolder.decode(record.holder()),
                Instant.ofEpochMilli(record.acquiredAt()),
                Instant.ofEpochMilli(record.expiresAt()),
                Duration.ofMillis(Math.max(1, record.expiresAt() - now)),
                record.fence()));
    }

    /** @return the file of {@code name}, in the folder (package-private for the multi-process tests) */
    Path fileOf(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(digest) + SUFFIX);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    private LockStoreUnavailableException unavailable(String name, IOException e) {
        return new LockStoreUnavailableException("Lock folder '" + directory + "' failed: " + e, name, storeName, e);
    }
}

package dev.exclusive.file;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.file.LockFiles.Change;
import dev.exclusive.spi.Acquisition;
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

/**
 * Locks shared by the processes of one host through a folder they can all write.
 *
 * <p><b>Layout.</b> Each lock name has one file, {@code <sha-256 of the name in hex>.lock}: the name never
 * becomes a path, so {@code ../x}, {@code /etc/passwd} or {@code C:\x} stay inside the folder, and every valid
 * name fits the file system's limits. The file holds a small record ({@link FileRecord}): the name, the last fence
 * granted, and, while held, the owner, holder, acquisition and expiry times (host wall clock, milliseconds).
 *
 * <p><b>Algorithm.</b> Every operation on a name runs in one OS-lock section ({@link LockFiles}):
 * <ol>
 * <li>take this JVM's lock for the file's stripe (one of 256, by path): the OS lock below belongs to the whole
 * process, so threads of one JVM must be kept apart first, and every open of the file in this JVM must happen
 * under it, because closing any descriptor of a file drops the process's {@code fcntl} locks on it;</li>
 * <li>open the file (created if missing; list only reads) and take its OS lock, exclusive or, to list, shared;</li>
 * <li>read the record, decide and write it back:
 * <ul>
 * <li>acquire: if free or expired by the host clock, write holder, times and fence + 1; if held by the same owner
 * (a retried attempt), renew its expiry to ttl from now and answer acquired with its fence and acquisition time;
 * else answer busy;</li>
 * <li>release: if held by the owner and not expired, mark it free (keeping the fence); then signal this JVM's
 * waiters;</li>
 * <li>extend: if held by the owner and not expired, write the new expiry;</li>
 * <li>force-release: mark it free whoever holds it; then signal.</li>
 * </ul></li>
 * <li>close the file, which releases the OS lock, then the stripe.</li>
 * </ol>
 * <b>Why it is atomic:</b> every read-decide-write of a file happens under its exclusive OS lock, which every
 * process honours. The OS lock is held only for that read-modify-write, never for the lease, so a holder that
 * dies (even by SIGKILL) leaves a record that frees itself at its expiry and not before. Files are kept after
 * release so that the fence survives restarts: one small file remains per distinct name ever locked. With
 * {@code fsync} on, every write is forced to disk, so fences also survive a host crash.
 *
 * <p><b>No waiting in the kernel.</b> The OS lock is taken with {@link FileChannel#tryLock} in a loop (spin,
 * yield, then park from 10 µs to about 1 ms) for at most the store's timeout (default 5 s), after which the call
 * fails with {@link LockStoreUnavailableException} naming the folder and the file. A blocking {@code lock()}
 * ({@code fcntl(F_SETLKW)}) let the kernel see a deadlock where there was none ({@code EDEADLK}, "Resource deadlock
 * avoided"): {@code fcntl} locks belong to processes, so JVM A holding file X while another of its threads waited
 * for Y, and JVM B doing the reverse, formed a cycle between the two processes. A thread that never waits in the
 * kernel is never part of such a cycle. The other cure, one JVM-wide guard around every OS-lock section, makes
 * every lock-file operation of a JVM wait for every other, whatever their names, and still needs a
 * non-interruptible way to wait.
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
 * <p><b>Waiting:</b> threads of this JVM are woken by a local signal when any store instance on the same folder
 * releases; releases by other processes are seen by polling with a short backoff (2 to 50 ms).
 */
public final class FileLockStore implements LockStore {

    /** The timeout when none is given: the longest an operation waits for a lock file's OS lock. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final ConcurrentHashMap<Path, LocalSignals> SIGNALS = new ConcurrentHashMap<>();
    private static final String SUFFIX = ".lock";

    private final Path directory;
    private final String storeName;
    private final Clock clock;
    private final LocalSignals signals;
    private final LockFiles files;

    /**
     * A store on the host's clock, without fsync, with the default timeout.
     *
     * @param directory the shared folder; created if missing
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory) {
        this(directory, "file", false, Clock.systemUTC());
    }

    /**
     * A store with the default timeout.
     *
     * @param directory the shared folder; created if missing
     * @param storeName the configured store's name, for messages
     * @param fsync     whether to force every write to disk
     * @param clock     the host clock (a test may skew it)
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory, String storeName, boolean fsync, Clock clock) {
        this(directory, storeName, fsync, clock, DEFAULT_TIMEOUT);
    }

    /**
     * @param directory the shared folder; created if missing
     * @param storeName the configured store's name, for messages
     * @param fsync     whether to force every write to disk
     * @param clock     the host clock (a test may skew it); it decides expiry
     * @param timeout   the longest an operation waits for a lock file's OS lock; positive
     * @throws LockConfigurationException if the folder cannot be created or written
     * @throws IllegalArgumentException   if {@code timeout} is not positive
     */
    public FileLockStore(Path directory, String storeName, boolean fsync, Clock clock, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "Store '" + storeName + "': the timeout must be positive, got " + timeout);
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
    }

    /** @return the folder the lock files are in */
    public Path directory() {
        return directory;
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        return update(name, false, current -> {
            long now = clock.millis();
            if (current != null && current.liveAt(now)) {
                if (!current.owner().equals(owner)) {
                    return Change.answer(new Acquisition.Busy(Duration.ofMillis(current.expiresAt() + 1 - now)));
                }
                FileRecord renewed = new FileRecord(
                        name, current.fence(), owner, current.holder(), current.acquiredAt(), expiry(now, ttl));
                return Change.write(renewed, acquired(renewed));
            }
            long fence = current == null ? 1 : current.fence() + 1;
            FileRecord next = new FileRecord(name, fence, owner, holder.encode(), now, expiry(now, ttl));
            return Change.write(next, acquired(next));
        });
    }

    private static Acquisition acquired(FileRecord record) {
        return new Acquisition.Acquired(
                record.fence(), Instant.ofEpochMilli(record.acquiredAt()), Instant.ofEpochMilli(record.expiresAt()));
    }

    @Override
    public boolean release(String name, String owner) {
        return free(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        return free(name, null);
    }

    /** Marks a live lock free, keeping its fence, if {@code owner} holds it ({@code null}: whoever holds it). */
    private boolean free(String name, String owner) {
        boolean released = update(name, false, current -> {
            long now = clock.millis();
            return current != null
                            && current.liveAt(now)
                            && (owner == null || current.owner().equals(owner))
                    ? Change.write(FileRecord.free(name, current.fence()), true)
                    : Change.answer(false);
        });
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return update(name, false, current -> {
            long now = clock.millis();
            if (current == null || !current.liveAt(now) || !current.owner().equals(owner)) {
                return Change.answer(false);
            }
            return Change.write(
                    new FileRecord(
                            name, current.fence(), owner, current.holder(), current.acquiredAt(), expiry(now, ttl)),
                    true);
        });
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return update(name, false, current -> Change.answer(toEntry(current, clock.millis())));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        List<LockEntry> live = new ArrayList<>();
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path file : paths) {
                if (live.size() >= limit) {
                    break;
                }
                files.update(file, true, current -> Change.answer(toEntry(current, clock.millis())))
                        .filter(entry -> entry.name().startsWith(prefix))
                        .ifPresent(live::add);
            }
        } catch (IOException e) {
            throw unavailable(null, e);
        }
        return live;
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

    /** Nothing to close: files are opened per operation. */
    @Override
    public void close() {
        // Each operation opens and closes its own file.
    }

    private <T> T update(String name, boolean shared, LockFiles.Section<T> section) {
        try {
            return files.update(fileOf(name), shared, section);
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

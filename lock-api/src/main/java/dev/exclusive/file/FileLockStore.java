package dev.exclusive.file;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInterruptedException;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import java.util.concurrent.locks.ReentrantLock;

/**
 * Locks shared by the processes of one host through a folder they can all write.
 *
 * <p>Layout. Each lock name has one file, {@code <sha-256 of the name in hex>.lock}: the name never becomes a
 * path, so {@code ../x}, {@code /etc/passwd} or {@code C:\x} stay inside the folder, and every valid name fits
 * the file system's limits. The file holds a small record: the name, the last fence granted, and, while held,
 * the owner, holder, acquisition and expiry times (host wall clock, milliseconds).
 *
 * <p>Algorithm. Every operation on a name runs under two locks: a JVM-wide lock striped by file path (the OS
 * lock below is per process, so threads of one JVM must be kept apart first), then an exclusive OS lock on the
 * whole file ({@link FileChannel#lock()}, {@code fcntl} on Linux), which other processes honour. Under both it
 * reads the record, decides, and writes it back:
 * <ol>
 * <li>acquire: if free or expired by the host clock, write holder, times and fence + 1; if held by the same owner
 * (a retried attempt), renew its expiry to ttl from now and answer acquired with its fence and acquisition time;
 * else answer busy;</li>
 * <li>release: if held by the owner and not expired, mark it free (keeping the fence); then signal;</li>
 * <li>extend: if held by the owner and not expired, write the new expiry;</li>
 * <li>force-release: mark it free whoever holds it; then signal.</li>
 * </ol>
 * The OS lock is held only for that read-modify-write, never for the lease, so a holder that dies (even by
 * SIGKILL) leaves a record that frees itself at its expiry and not before. Files are kept after release so that
 * the fence survives restarts: one small file remains per distinct name ever locked. With {@code fsync} on,
 * every write is forced to disk, so fences also survive a host crash.
 *
 * <p>Waiting: threads of this JVM are woken by a local signal when any store instance on the same folder
 * releases; releases by other processes are seen by polling with a short backoff (2 to 50 ms).
 */
public final class FileLockStore implements LockStore {

    private static final int MAGIC = 0x584c4b31; // "XLK1"
    private static final int STRIPES = 256;
    private static final ReentrantLock[] STRIPE_LOCKS = new ReentrantLock[STRIPES];
    private static final ConcurrentHashMap<Path, LocalSignals> SIGNALS = new ConcurrentHashMap<>();
    private static final String SUFFIX = ".lock";

    static {
        for (int i = 0; i < STRIPES; i++) {
            STRIPE_LOCKS[i] = new ReentrantLock();
        }
    }

    private final Path directory;
    private final String storeName;
    private final boolean fsync;
    private final Clock clock;
    private final LocalSignals signals;

    /** One lock file's content. {@code owner} is empty while free. */
    private record Record(String name, long fence, String owner, String holder, long acquiredAt, long expiresAt) {

        static Record free(String name, long fence) {
            return new Record(name, fence, "", "", 0, 0);
        }

        boolean liveAt(long now) {
            return !owner.isEmpty() && expiresAt >= now;
        }
    }

    /**
     * A store on the host's clock, without fsync.
     *
     * @param directory the shared folder; created if missing
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory) {
        this(directory, "file", false, Clock.systemUTC());
    }

    /**
     * @param directory the shared folder; created if missing
     * @param storeName the configured store's name, for messages
     * @param fsync     whether to force every write to disk
     * @param clock     the host clock (a test may skew it)
     * @throws LockConfigurationException if the folder cannot be created or written
     */
    public FileLockStore(Path directory, String storeName, boolean fsync, Clock clock) {
        this.storeName = storeName;
        this.fsync = fsync;
        this.clock = clock;
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
        return update(name, current -> {
            long now = clock.millis();
            if (current.liveAt(now) && !current.owner.equals(owner)) {
                return new Change<>(null, new Acquisition.Busy(Duration.ofMillis(current.expiresAt + 1 - now)));
            }
            Record next = current.liveAt(now)
                    ? new Record(name, current.fence, owner, current.holder, current.acquiredAt, expiry(now, ttl))
                    : new Record(name, current.fence + 1, owner, holder.encode(), now, expiry(now, ttl));
            return new Change<>(
                    next,
                    new Acquisition.Acquired(
                            next.fence, Instant.ofEpochMilli(next.acquiredAt), Instant.ofEpochMilli(next.expiresAt)));
        });
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
        boolean released = update(
                name,
                current -> current.liveAt(clock.millis()) && (owner == null || current.owner.equals(owner))
                        ? new Change<>(Record.free(name, current.fence), true)
                        : new Change<>(null, false));
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return update(name, current -> {
            long now = clock.millis();
            if (!current.liveAt(now) || !current.owner.equals(owner)) {
                return new Change<>(null, false);
            }
            return new Change<>(
                    new Record(name, current.fence, owner, current.holder, current.acquiredAt, expiry(now, ttl)), true);
        });
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return update(name, current -> new Change<>(null, toEntry(current, clock.millis())));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        List<LockEntry> live = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path file : files) {
                if (live.size() >= limit) {
                    break;
                }
                Optional<Record> record = read(file);
                record.filter(r -> r.name.startsWith(prefix))
                        .flatMap(r -> toEntry(r, clock.millis()))
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

    /** What an operation decides: the record to write ({@code null}: leave as is) and the answer. */
    private record Change<T>(Record write, T answer) {}

    private interface Operation<T> {
        Change<T> apply(Record current);
    }

    private <T> T update(String name, Operation<T> operation) {
        Path file = fileOf(name);
        ReentrantLock stripe = STRIPE_LOCKS[Math.floorMod(file.hashCode(), STRIPES)];
        stripe.lock();
        try (FileChannel channel = FileChannel.open(
                        file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
                FileLock ignored = channel.lock()) {
            Record current = decode(channel).orElse(Record.free(name, 0));
            Change<T> change = operation.apply(current);
            if (change.write != null) {
                write(channel, change.write);
            }
            return change.answer;
        } catch (ClosedByInterruptException | FileLockInterruptionException e) {
            Thread.currentThread().interrupt();
            InterruptedException interrupted = new InterruptedException("interrupted during a lock file operation");
            interrupted.initCause(e);
            throw new LockInterruptedException(name, storeName, interrupted);
        } catch (IOException e) {
            throw unavailable(name, e);
        } finally {
            stripe.unlock();
        }
    }

    /**
     * The last millisecond of a lease of {@code ttl} starting at {@code now}: the ttl rounded up to whole
     * milliseconds. The lease lasts through that millisecond ({@link Record#liveAt}), because the host clock is read
     * in truncated milliseconds and the lease must not end before the end the holder estimated from the instant
     * before its request.
     */
    private static long expiry(long now, Duration ttl) {
        return now + ttl.toMillis() + (ttl.minusMillis(ttl.toMillis()).isZero() ? 0 : 1);
    }

    private Optional<Record> read(Path file) throws IOException {
        ReentrantLock stripe = STRIPE_LOCKS[Math.floorMod(file.hashCode(), STRIPES)];
        stripe.lock();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                FileLock ignored = channel.lock(0, Long.MAX_VALUE, true)) {
            return decode(channel);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } finally {
            stripe.unlock();
        }
    }

    private Optional<LockEntry> toEntry(Record record, long now) {
        if (!record.liveAt(now)) {
            return Optional.empty();
        }
        return Optional.of(new LockEntry(
                record.name,
                record.owner,
                LockHolder.decode(record.holder),
                Instant.ofEpochMilli(record.acquiredAt),
                Instant.ofEpochMilli(record.expiresAt),
                Duration.ofMillis(Math.max(1, record.expiresAt - now)),
                record.fence));
    }

    private Path fileOf(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(digest) + SUFFIX);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    private static Optional<Record> decode(FileChannel channel) throws IOException {
        long size = channel.size();
        if (size < Integer.BYTES) {
            return Optional.empty();
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(size, 64 * 1024));
        while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
            // read the whole record
        }
        buffer.flip();
        try {
            if (buffer.getInt() != MAGIC) {
                throw new IOException("not a lock file (bad header)");
            }
            long fence = buffer.getLong();
            long acquiredAt = buffer.getLong();
            long expiresAt = buffer.getLong();
            String name = string(buffer);
            String owner = string(buffer);
            String holder = string(buffer);
            return Optional.of(new Record(name, fence, owner, holder, acquiredAt, expiresAt));
        } catch (java.nio.BufferUnderflowException e) {
            throw new IOException("damaged lock file (truncated record)", e);
        }
    }

    private void write(FileChannel channel, Record record) throws IOException {
        byte[] name = record.name.getBytes(StandardCharsets.UTF_8);
        byte[] owner = record.owner.getBytes(StandardCharsets.UTF_8);
        byte[] holder = record.holder.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(4 + 8 * 3 + 4 * 3 + name.length + owner.length + holder.length);
        buffer.putInt(MAGIC).putLong(record.fence).putLong(record.acquiredAt).putLong(record.expiresAt);
        buffer.putInt(name.length)
                .put(name)
                .putInt(owner.length)
                .put(owner)
                .putInt(holder.length)
                .put(holder);
        buffer.flip();
        int length = buffer.remaining();
        int position = 0;
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
        channel.truncate(length);
        if (fsync) {
            channel.force(false);
        }
    }

    private static String string(ByteBuffer buffer) throws IOException {
        int length = buffer.getInt();
        if (length < 0 || length > buffer.remaining()) {
            throw new IOException("damaged lock file (bad length " + length + ")");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private LockStoreUnavailableException unavailable(String name, IOException e) {
        return new LockStoreUnavailableException("Lock folder '" + directory + "' failed: " + e, name, storeName, e);
    }
}

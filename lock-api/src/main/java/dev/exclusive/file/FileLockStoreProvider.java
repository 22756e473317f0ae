package dev.exclusive.file;

import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.StoreSettings;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * Builds {@code file} stores. Settings:
 * <ul>
 * <li>{@code directory} (required): the folder every process shares;</li>
 * <li>{@code fsync}: {@code true} or {@code false} (default), whether every write is forced to disk;</li>
 * <li>{@code retention}: how long a name's file is kept after its lock was last released or expired (default
 * {@code 24h}, at least {@code 1m}); see {@link FileLockStore#cleanUp()};</li>
 * <li>{@code timeout}: the longest an operation waits for a lock file's OS lock before it reports the store
 * unavailable (default {@code 5s});</li>
 * <li>{@code audit-max-records}, {@code audit-max-age}: the bounds of the audit trail, {@code audit.log} in the
 * folder (default 1000 records, 7 days; see {@link AuditLimits}).</li>
 * </ul>
 */
public final class FileLockStoreProvider implements LockStoreProvider {

    @Override
    public String type() {
        return "file";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> values) {
        return create(storeName, values, null);
    }

    /** {@inheritDoc} The cleanup's thread comes from {@code threads}. */
    @Override
    public LockStore create(String storeName, Map<String, String> values, ThreadFactory threads) {
        Set<String> known = new HashSet<>(Set.of("directory", "fsync", "retention", "timeout"));
        known.addAll(AuditLimits.SETTINGS);
        StoreSettings settings = StoreSettings.of(type(), storeName, values, known);
        String directory = settings.required("directory", "a folder every process can write");
        boolean fsync = settings.bool("fsync", false);
        Duration retention = settings.duration("retention", Duration.ofMinutes(1), Duration.ofDays(36_500))
                .orElse(FileLockStore.DEFAULT_RETENTION);
        Duration timeout = settings.duration("timeout", Duration.ofMillis(1), Duration.ofHours(1))
                .orElse(FileLockStore.DEFAULT_TIMEOUT);
        try {
            return new FileLockStore(
                    Path.of(directory),
                    storeName,
                    fsync,
                    Clock.systemUTC(),
                    retention,
                    timeout,
                    AuditLimits.of(settings),
                    threads);
        } catch (InvalidPathException e) {
            throw settings.problem(
                    "directory",
                    "needs " + settings.key("directory") + " to be a valid path, got '" + directory + "'",
                    e);
        }
    }
}

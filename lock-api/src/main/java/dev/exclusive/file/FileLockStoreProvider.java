package dev.exclusive.file;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds {@code file} stores. Settings: {@code directory} (required: the folder every process shares) and
 * {@code fsync} ({@code true} or {@code false}, default {@code false}).
 */
public final class FileLockStoreProvider implements LockStoreProvider {

    private static final Set<String> KEYS = Set.of("directory", "fsync");

    @Override
    public String type() {
        return "file";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        for (String key : new TreeSet<>(settings.keySet())) {
            if (!KEYS.contains(key)) {
                throw new LockConfigurationException("Store '" + storeName + "' of type file has no setting '" + key
                        + "'; known settings: directory, fsync", storeName, key, null);
            }
        }
        String directory = settings.get("directory");
        if (directory == null || directory.isBlank()) {
            throw new LockConfigurationException("Store '" + storeName + "' of type file needs a folder: set exclusive"
                    + ".store." + storeName + ".directory to a folder every process can write", storeName, "directory",
                    null);
        }
        String fsync = settings.getOrDefault("fsync", "false").strip();
        if (!fsync.equalsIgnoreCase("true") && !fsync.equalsIgnoreCase("false")) {
            throw new LockConfigurationException("Store '" + storeName + "': exclusive.store." + storeName
                    + ".fsync must be true or false, got '" + fsync + "'", storeName, "fsync", null);
        }
        try {
            return new FileLockStore(Path.of(directory.strip()), storeName, Boolean.parseBoolean(fsync),
                    Clock.systemUTC());
        } catch (InvalidPathException e) {
            throw new LockConfigurationException("Store '" + storeName + "': exclusive.store." + storeName
                    + ".directory is not a valid path: '" + directory + "'", storeName, "directory", e);
        }
    }
}

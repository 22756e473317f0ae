package dev.exclusive.file;

import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.StoreSettings;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Set;

/**
 * Builds {@code file} stores. Settings: {@code directory} (required: the folder every process shares) and
 * {@code fsync} ({@code true} or {@code false}, default {@code false}).
 */
public final class FileLockStoreProvider implements LockStoreProvider {

    @Override
    public String type() {
        return "file";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> values) {
        StoreSettings settings = StoreSettings.of(type(), storeName, values, Set.of("directory", "fsync"));
        String directory = settings.required("directory", "a folder every process can write");
        boolean fsync = settings.bool("fsync", false);
        try {
            return new FileLockStore(Path.of(directory), storeName, fsync, Clock.systemUTC());
        } catch (InvalidPathException e) {
            throw settings.problem(
                    "directory",
                    "needs " + settings.key("directory") + " to be a valid path, got '" + directory + "'",
                    e);
        }
    }
}

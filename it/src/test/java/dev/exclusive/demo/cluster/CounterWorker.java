package dev.exclusive.demo.cluster;

import dev.exclusive.LockRegistry;
import dev.exclusive.demo.Deployments;
import dev.exclusive.file.FileLockStoreProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The "other server": a plain Java process with lock-api only, on the same lock folder as the Liberty server.
 * Arguments: lock folder, counter file, increments. Creates {@code <counter file>.ready} once its registry is up,
 * so that the test starts the server's increments while this process runs.
 */
public final class CounterWorker {

    private CounterWorker() {}

    public static void main(String[] args) throws IOException {
        try (LockRegistry registry = LockRegistry.builder()
                .store(
                        "shared",
                        new FileLockStoreProvider().create("shared", Map.of("directory", args[0])),
                        Deployments.SHARED_PREFIX)
                .instanceName("counter-worker")
                .build()) {
            Files.createFile(Path.of(args[1] + ".ready"));
            SharedCounter.increment(registry, Path.of(args[1]), Integer.parseInt(args[2]));
        }
    }
}

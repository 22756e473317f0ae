package dev.exclusive.demo.cluster;

import dev.exclusive.LockRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A counter in a plain file, incremented by read-modify-write under the lock {@code it:counter}: the server and a
 * separate Java process both run this code on the same file and the same lock folder. Without the lock they would
 * lose updates.
 */
public final class SharedCounter {

    public static final String LOCK = "it:counter";

    private SharedCounter() {}

    /** Adds one, {@code times} times, each under the lock (waiting up to 30 s for it). */
    public static void increment(LockRegistry registry, Path counter, int times) {
        for (int i = 0; i < times; i++) {
            boolean ran = registry.lock(LOCK, Duration.ofSeconds(30))
                    .block(Duration.ofSeconds(30), () -> write(counter, read(counter) + 1));
            if (!ran) {
                throw new IllegalStateException("The counter lock stayed busy for 30 s");
            }
        }
    }

    public static long read(Path counter) {
        try {
            return Files.exists(counter)
                    ? Long.parseLong(
                            Files.readString(counter, StandardCharsets.UTF_8).strip())
                    : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path counter, long value) {
        try {
            Files.writeString(counter, Long.toString(value), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.exclusive.file;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A separate JVM for the multi-process tests: {@code count <folder> <counter file> <rounds>} increments a
 * counter file non-atomically under the lock; {@code hold <folder> <name> <ttl ms>} acquires and then hangs,
 * waiting to be killed.
 */
public final class FileCounterWorker {

    private FileCounterWorker() {}

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args[1]);
        try (LockRegistry registry =
                LockRegistry.builder().store("files", new FileLockStore(folder)).build()) {
            if (args[0].equals("hold")) {
                Lock lock = registry.lock(args[2], Duration.ofMillis(Long.parseLong(args[3])));
                if (!lock.block(Duration.ofSeconds(30))) {
                    System.exit(2);
                }
                System.out.println("acquired " + lock.fence().getAsLong());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            Path counter = Path.of(args[2]);
            int rounds = Integer.parseInt(args[3]);
            for (int i = 0; i < rounds; i++) {
                boolean ran = registry.lock("counter", Duration.ofSeconds(30)).block(Duration.ofSeconds(60), () -> {
                    int value = Integer.parseInt(
                            Files.readString(counter, StandardCharsets.UTF_8).strip());
                    Thread.onSpinWait();
                    Files.writeString(counter, Integer.toString(value + 1), StandardCharsets.UTF_8);
                });
                if (!ran) {
                    System.exit(3);
                }
            }
        }
    }
}

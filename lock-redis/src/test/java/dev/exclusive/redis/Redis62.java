package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * A real {@code redis-server} 6.2, for the tests of what the store does on Redis before 7.0: the linux-amd64 binary
 * that the test dependency {@code com.github.codemonstur:embedded-redis} carries (only the binary is used, not its
 * Java API), copied out of the jar on the test class path into {@code target/redis-6.2/redis-server}.
 */
final class Redis62 {

    /** The jar's entry: built from 6.2.6, it reports {@code v=6.2.11}. */
    private static final String ENTRY = "redis-server-6.2.6-v5-linux-amd64";

    private static String server;

    private Redis62() {}

    /**
     * @return the path of the Redis 6.2 {@code redis-server}, copied out of the jar on the first call; skips (or under
     *     {@code CI=true} fails) the calling test where the binary cannot run (not Linux on amd64)
     */
    static synchronized String server() throws IOException, InterruptedException {
        if (server != null) {
            return server;
        }
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux")
                || !List.of("amd64", "x86_64").contains(arch)) {
            RedisServers.unavailable("the Redis 6.2 of embedded-redis (" + ENTRY + ") runs on Linux amd64 only, not "
                    + os + " " + arch + "; run the Redis 6.2 tests on such a host");
        }
        Path binary = Path.of(System.getProperty("basedir", "."), "target", "redis-6.2", "redis-server")
                .toAbsolutePath();
        Files.createDirectories(binary.getParent());
        // copied beside it, then moved: a test JVM that starts meanwhile never runs half a file
        Path copy = Files.createTempFile(binary.getParent(), "redis-server", ".part");
        try (InputStream in = Redis62.class.getClassLoader().getResourceAsStream(ENTRY)) {
            if (in == null) {
                fail(ENTRY + " is not on the test class path: lock-redis needs the test dependency "
                        + "com.github.codemonstur:embedded-redis");
            }
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!copy.toFile().setExecutable(true, false)) {
            fail("cannot make " + copy + " executable");
        }
        Files.move(copy, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        String version = RedisServers.run(List.of(binary.toString(), "--version"));
        if (!version.contains("v=6.2.")) {
            fail(binary + " is not Redis 6.2: " + version);
        }
        server = binary.toString();
        return server;
    }
}

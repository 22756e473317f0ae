package dev.exclusive.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import java.io.RandomAccessFile;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two copies of lock-api in one JVM on one folder, as two applications of one server that each bundle it: the second
 * copy's stores must not open a lock file while the first copy's store is changing it, since closing any descriptor
 * of a file drops the process's OS lock on it, and another process could then take the lock. The second copy is
 * loaded by a class loader of its own; its store stops inside a release (its clock blocks) while this copy inspects
 * the same lock, and another process tries the file's OS lock meanwhile.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileLockStoreClassLoadersTest {

    @TempDir
    Path folder;

    /** Another process: tries the exclusive OS lock on a file and prints GOT or BUSY. */
    public static final class TryLock {
        public static void main(String[] args) throws Exception {
            try (RandomAccessFile file = new RandomAccessFile(args[0], "rw")) {
                FileLock lock = file.getChannel().tryLock();
                System.out.println(lock == null ? "BUSY" : "GOT");
            }
        }
    }

    /** A clock that, once armed, stops its first caller until let go: a store inside its change of a file. */
    static final class StoppingClock extends Clock {
        volatile boolean armed;
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            if (armed) {
                armed = false;
                stopped.countDown();
                try {
                    go.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Instant.now();
        }
    }

    @Test
    void aSecondCopyOfTheStoreInOneJvmWaitsInsteadOfDroppingTheFirstCopysFileLock() throws Exception {
        FileLockStore here = new FileLockStore(folder);
        String name = "shared";
        assertInstanceOf(
                Acquisition.Acquired.class,
                here.tryAcquire(name, "owner", new LockHolder("node", "main", ""), Duration.ofMinutes(1)));
        Path file = here.fileOf(name);
        URL classes = FileLockStore.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader application =
                new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> copy = application.loadClass(FileLockStore.class.getName());
            assertNotSame(FileLockStore.class, copy, "a copy of its own");
            StoppingClock clock = new StoppingClock();
            Object other = copy.getConstructor(Path.class, String.class, boolean.class, Clock.class)
                    .newInstance(folder, "other", false, clock);
            clock.armed = true;
            CompletableFuture<Object> release = CompletableFuture.supplyAsync(() -> invoke(other, name));
            assertTrue(clock.stopped.await(10, TimeUnit.SECONDS), "the copy is inside its release");
            assertEquals("BUSY", tryLockElsewhere(file), "the copy holds the file's OS lock");

            CompletableFuture<Optional<LockEntry>> inspect = CompletableFuture.supplyAsync(() -> here.inspect(name));
            Thread.sleep(300); // long enough for an inspect that does not wait to open and close the file
            String meanwhile = tryLockElsewhere(file);
            clock.go.countDown();

            assertEquals("BUSY", meanwhile, "this copy's inspect left the other copy's OS lock in place");
            release.get(10, TimeUnit.SECONDS);
            assertTrue(inspect.get(10, TimeUnit.SECONDS).isEmpty(), "and then saw the lock released");
        }
    }

    private static Object invoke(Object store, String name) {
        try {
            return store.getClass()
                    .getMethod("release", String.class, String.class)
                    .invoke(store, name, "owner");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String tryLockElsewhere(Path file) throws Exception {
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        TryLock.class.getName(),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        process.waitFor();
        return out;
    }
}

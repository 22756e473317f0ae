package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Sentinel edges: master 6410, Sentinel 6411 (down-after 60 s, so a killed master stays "master"). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisSentinelEdgeTest {

    private static final int MASTER = 6410;
    private static final int SENTINEL = 6411;
    private static final LockHolder HOLDER = new LockHolder("sentinel-edge", "main", "");
    private static Path folder;

    @BeforeAll
    static void start() throws Exception {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-sentinel-edge");
        RedisServers.start(MASTER, folder);
        RedisServers.stop(SENTINEL);
        Path config = Files.writeString(
                folder.resolve("sentinel.conf"),
                String.join(
                        "\n",
                        "port " + SENTINEL,
                        "bind " + RedisServers.HOST,
                        "daemonize yes",
                        "dir " + folder,
                        "logfile " + folder.resolve("sentinel.log"),
                        "sentinel monitor edge " + RedisServers.HOST + " " + MASTER + " 1",
                        "sentinel down-after-milliseconds edge 60000",
                        ""));
        RedisServers.run(List.of("redis-server", config.toString(), "--sentinel"));
        RedisServers.awaitTrue(() -> RedisServers.answers(SENTINEL), Duration.ofSeconds(10), "sentinel");
        Thread.sleep(500);
    }

    @AfterAll
    static void stop() throws Exception {
        RedisServers.stop(SENTINEL);
        RedisServers.stop(MASTER);
        RedisServers.deleteFolder(folder);
    }

    private static Map<String, String> settings(String master, int sentinelPort) {
        return Map.of(
                "sentinel-master",
                master,
                "sentinels",
                RedisServers.HOST + ":" + sentinelPort,
                "connect-timeout",
                "300ms",
                "socket-timeout",
                "300ms");
    }

    @Test
    void anUnknownMasterNameFailsCreationNamingIt() {
        long start = System.nanoTime();
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> new RedisLockStoreProvider()
                        .create("edge", settings("typo", SENTINEL))
                        .close());
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("unknown master: " + ms + " ms: " + e);
        assertTrue(ms < 2_000, ms + " ms");
    }

    @Test
    void aSilentSentinelFailsCreationWithinTheTimeouts() throws Exception {
        try (ServerSocket silent = new ServerSocket(6412, 50, InetAddress.getByName(RedisServers.HOST))) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException done) {
                    // closed
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long start = System.nanoTime();
            RuntimeException e = assertThrows(
                    RuntimeException.class,
                    () -> new RedisLockStoreProvider()
                            .create("edge", settings("edge", 6412))
                            .close());
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("silent sentinel: " + ms + " ms: " + e);
            assertTrue(ms < 2_000, ms + " ms");
        }
    }

    @Test
    void aKilledMasterFailsCallsWithinTheTimeouts() throws Exception {
        try (LockStore store = new RedisLockStoreProvider().create("edge", settings("edge", SENTINEL))) {
            assertTrue(
                    store.tryAcquire("a", "o", HOLDER, Duration.ofSeconds(30)).acquired());
            long pid = RedisServers.processId(MASTER);
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
            Thread.sleep(200);
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                LockStoreUnavailableException e = assertThrows(
                        LockStoreUnavailableException.class,
                        () -> store.tryAcquire("b", "o", HOLDER, Duration.ofSeconds(30)));
                long ms = (System.nanoTime() - start) / 1_000_000;
                System.out.println("killed master: " + ms + " ms: " + e.getMessage());
                assertTrue(ms < 1_000, ms + " ms");
            }
        } finally {
            RedisServers.start(MASTER, folder);
        }
    }
}

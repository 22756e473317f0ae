package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.fail;

import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Redis servers the tests use: the shared one on 127.0.0.1:6379, and throwaway ones this module starts on
 * ports 7100-7199 ({@code --save "" --appendonly no}, in a temporary folder) and stops: a Cluster on 7101-7103,
 * a restarting Redis on 7110, Sentinel on 7120-7121, a Cluster behind a proxy on 7130, a password on 7140, a
 * master and its replica on 7150-7151; on 7400-7499 the sharded-release Cluster on 7401-7403, the failover
 * Cluster on 7411-7416, a one-node Cluster behind a proxy on 7421 and a Cluster without sharded pub/sub on
 * 7431-7433, a Redis 6.2 on 7440 and a Redis 6.2 Cluster on 7441-7443; and on 7500-7599 the servers of the scale
 * and failover tests: a Redis on 7500, a Cluster on 7501-7503, a master, 2 replicas and 3 Sentinels on 7560-7565.
 * {@code -Dredis.cluster.port}, {@code -Dredis.sentinel.port}, {@code -Dredis.failover.cluster.port},
 * {@code -Dredis.failover.sentinel.port}, {@code -Dredis.fallback.cluster.port}, {@code -Dredis.v62.port} and
 * {@code -Dredis.v62.cluster.port} move the first port of their test's servers, for parallel builds on one host.
 *
 * <p>Servers run the {@code redis-server} on the PATH, unless a test names another binary ({@link Redis62}).
 *
 * <p>A missing server skips the tests with a message, unless {@code CI=true}: then it fails them.
 */
final class RedisServers {

    static final String HOST = "127.0.0.1";
    static final int SHARED_PORT = 6379;
    static final String SHARED_URL = "redis://" + HOST + ":" + SHARED_PORT;
    /** The {@code redis-server} that throwaway servers run unless a test names another: the one on the PATH. */
    static final String REDIS_SERVER = "redis-server";

    private RedisServers() {}

    /** @return a store on the shared Redis whose fence counters are kept 5 minutes, not a day */
    static RedisLockStore sharedStore(String storeName) {
        return RedisLockStore.builder()
                .url(URI.create(SHARED_URL))
                .storeName(storeName)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }

    /**
     * @return a store on the standalone Redis at {@code url} with {@code limits} on its audit trail, whose fence
     *     counters are kept 5 minutes, not a day
     */
    static RedisLockStore standaloneStore(String url, String storeName, AuditLimits limits) {
        return RedisLockStore.builder()
                .url(URI.create(url))
                .storeName(storeName)
                .fenceRetention(Duration.ofMinutes(5))
                .auditLimits(limits)
                .build();
    }

    /**
     * @return a store on the Cluster whose three masters listen on {@code ports}, built through the provider as
     *     configuration builds it (2 s timeouts), with {@code more} settings
     */
    static LockStore clusterStore(String storeName, int[] ports, Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "nodes",
                HOST + ":" + ports[0] + ", " + HOST + ":" + ports[1] + ", " + HOST + ":" + ports[2],
                "connect-timeout",
                "2s",
                "socket-timeout",
                "2s"));
        settings.putAll(more);
        return new RedisLockStoreProvider().create(storeName, settings);
    }

    /** @return {@link #clusterStore} with {@code limits} on its audit trail, as the settings that configure them */
    static LockStore clusterStore(String storeName, int[] ports, AuditLimits limits) {
        return clusterStore(
                storeName,
                ports,
                Map.of(
                        "audit-max-records", Integer.toString(limits.maxRecords()),
                        "audit-max-age", limits.maxAge().toString()));
    }

    /** @return a prefix of lock names that no other test run uses on the shared Redis */
    static String uniquePrefix(String what) {
        return what + "-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** Skips (or under CI fails) the calling test when the shared Redis does not answer. */
    static void requireSharedRedis() {
        if (!answers(SHARED_PORT)) {
            unavailable("no Redis answers on " + HOST + ":" + SHARED_PORT + "; start one (redis-server) to run the "
                    + "Redis store tests");
        }
    }

    /** Skips (or under CI fails) the calling test when {@code redis-server} and {@code redis-cli} are missing. */
    static void requireRedisBinaries() {
        for (String binary : List.of("redis-server", "redis-cli")) {
            boolean found = false;
            for (String folder : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                found |= Files.isExecutable(Path.of(folder, binary));
            }
            if (!found) {
                unavailable(binary + " is not on the PATH; install Redis to run the tests that start their own "
                        + "servers");
            }
        }
    }

    static void unavailable(String message) {
        if ("true".equals(System.getenv("CI"))) {
            fail(message + " (CI=true: services must be there)");
        }
        Assumptions.abort(message);
    }

    /** @return whether a Redis answers PING on the port within a second (one that asks for a password counts) */
    static boolean answers(int port) {
        try (Jedis jedis = new Jedis(
                new HostAndPort(HOST, port),
                DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(1_000)
                        .socketTimeoutMillis(1_000)
                        .build())) {
            return "PONG".equals(jedis.ping());
        } catch (JedisDataException e) {
            return e.getMessage() != null && e.getMessage().startsWith("NOAUTH");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Starts a throwaway server (daemonized, no persistence) and waits until it answers.
     *
     * @param port  a port of this module's ranges 7100-7199 and 7500-7599
     * @param dir   the folder for its files
     * @param extra more {@code redis-server} arguments
     */
    static void start(int port, Path dir, String... extra) throws IOException, InterruptedException {
        start(REDIS_SERVER, port, dir, extra);
    }

    /** As {@link #start(int, Path, String...)}, running {@code server}: a path, or a name on the PATH. */
    static void start(String server, int port, Path dir, String... extra) throws IOException, InterruptedException {
        stop(port); // a previous run that died may have left it running
        List<String> command = new ArrayList<>(List.of(
                server,
                "--port",
                Integer.toString(port),
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "yes",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("redis-" + port + ".log").toString()));
        command.addAll(List.of(extra));
        run(command);
        awaitTrue(() -> answers(port), Duration.ofSeconds(10), "redis-server on port " + port + " to answer");
    }

    /**
     * Starts a Redis Cluster of masters only, one per port, with the slots split into equal ranges in port order,
     * and waits until every node reports {@code cluster_state:ok}.
     */
    static void startCluster(Path dir, int... ports) throws IOException, InterruptedException {
        startCluster(dir, 0, ports);
    }

    /**
     * Starts a throwaway Redis Cluster on {@code ports}: all masters when {@code replicas} is 0, else {@code redis-cli --cluster create} chooses masters and gives each {@code replicas} replicas; waits until
     * every node reports {@code cluster_state:ok}.
     *
     * @param extra more {@code redis-server} arguments for every node
     */
    static void startCluster(Path dir, int replicas, int[] ports, String... extra)
            throws IOException, InterruptedException {
        startCluster(REDIS_SERVER, dir, replicas, ports, extra);
    }

    /** As {@link #startCluster(Path, int, int[], String...)}, every node running {@code server}. */
    static void startCluster(String server, Path dir, int replicas, int[] ports, String... extra)
            throws IOException, InterruptedException {
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (int port : ports) {
            startClusterNode(server, dir, port, extra);
            create.add(HOST + ":" + port);
        }
        create.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
        run(create);
        for (int port : ports) {
            awaitTrue(() -> clusterStateOk(port), Duration.ofSeconds(30), "cluster_state:ok on port " + port);
        }
    }

    /**
     * Starts {@code main} in a JVM of its own, on this JVM's class path, with its output (and errors) to
     * {@code log}.
     */
    static Process startJvm(Class<?> main, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /**
     * Starts one node of a throwaway Cluster; a node that was part of one before (its {@code nodes-<port>.conf} is
     * in {@code dir}) joins it again, as a replica if its slots went to another.
     */
    static void startClusterNode(Path dir, int port, String... extra) throws IOException, InterruptedException {
        startClusterNode(REDIS_SERVER, dir, port, extra);
    }

    /** As {@link #startClusterNode(Path, int, String...)}, running {@code server}. */
    static void startClusterNode(String server, Path dir, int port, String... extra)
            throws IOException, InterruptedException {
        List<String> arguments = new ArrayList<>(List.of(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                dir.resolve("nodes-" + port + ".conf").toString()));
        arguments.addAll(List.of(extra));
        start(server, port, dir, arguments.toArray(String[]::new));
    }

    /** @return whether the node on {@code port} answers and reports {@code cluster_state:ok} */
    static boolean clusterStateOk(int port) {
        try (Jedis jedis = new Jedis(new HostAndPort(HOST, port))) {
            return jedis.clusterInfo().contains("cluster_state:ok");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** @return the process id of the server on {@code port}, for a test to kill it (SIGKILL) */
    static long processId(int port) {
        return Long.parseLong(RedisInfo.field(port, "server", "process_id"));
    }

    /** Stops a throwaway server without saving; nothing happens if none runs there. */
    static void stop(int port) throws IOException, InterruptedException {
        if (answers(port)) {
            run(List.of("redis-cli", "-h", HOST, "-p", Integer.toString(port), "shutdown", "nosave"));
            awaitTrue(() -> !answers(port), Duration.ofSeconds(10), "redis-server on port " + port + " to stop");
        }
    }

    /** Runs a command, failing with its output unless it exits with 0 within 60 s. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("timed out: " + command);
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0 && !command.contains("shutdown")) {
            fail(command + " exited with " + process.exitValue() + ": " + output);
        }
        return output;
    }

    /** Polls until {@code condition} holds, failing after {@code max}. */
    static void awaitTrue(java.util.function.BooleanSupplier condition, Duration max, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("waited " + max + " for " + what);
            }
            Thread.sleep(50);
        }
    }

    /** Stops the throwaway servers on {@code ports} and deletes their folder. */
    static void stopAll(Path dir, int... ports) throws IOException, InterruptedException {
        for (int port : ports) {
            stop(port);
        }
        deleteFolder(dir);
    }

    /**
     * Starts a daemon thread that waits for {@code name} in {@code store} as {@code block()} does between attempts,
     * 200 ms at a time, while {@code waiting} holds: it drives the release subscriber and its watchdog.
     */
    static Thread waitWhile(java.util.concurrent.atomic.AtomicBoolean waiting, RedisLockStore store, String name) {
        Thread waiter = new Thread(
                () -> {
                    try {
                        while (waiting.get()) {
                            store.awaitRelease(name, Duration.ofMillis(200));
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "waiter-" + name);
        waiter.setDaemon(true);
        waiter.start();
        return waiter;
    }

    /** Deletes a folder of throwaway servers' files, if there is one. */
    static void deleteFolder(Path folder) throws IOException {
        if (folder == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * @return whether the lease of {@code name} on the node at {@code port} lists a waiting store instance (its
     *     second line, see wait.lua)
     */
    static boolean waiterRecorded(int port, String name) {
        try (Jedis jedis = new Jedis(new HostAndPort(HOST, port))) {
            String lease = jedis.get(RedisKeys.lockKey(name));
            return lease != null && !lease.split("\n", -1)[1].isEmpty();
        }
    }

    /** Resets the command statistics of the nodes at {@code ports}, for {@link #commandCalls(int, String)}. */
    static void resetStats(int... ports) {
        for (int port : ports) {
            try (Jedis jedis = new Jedis(new HostAndPort(HOST, port))) {
                jedis.configResetStat();
            }
        }
    }

    /** @return how often {@code command} ran on the node since the last reset, scripts' calls included */
    static long commandCalls(int port, String command) {
        try (Jedis jedis = new Jedis(new HostAndPort(HOST, port))) {
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_" + command + ":calls=")) {
                    return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
                }
            }
            return 0;
        }
    }
}

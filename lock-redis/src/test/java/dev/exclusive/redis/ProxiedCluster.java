package dev.exclusive.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A throwaway one-node Redis Cluster that owns every slot and announces itself at a {@link FaultyProxy}, so that
 * every connection of a Cluster client (which connects where the cluster says its nodes are) goes through the
 * proxy, for tests that lose replies or silence the link.
 */
final class ProxiedCluster implements AutoCloseable {

    private final int port;
    private final Path folder;
    private final FaultyProxy proxy;

    private ProxiedCluster(int port, Path folder, FaultyProxy proxy) {
        this.port = port;
        this.folder = folder;
        this.proxy = proxy;
    }

    /**
     * Starts the node on {@code port} behind a new proxy; skips (or under CI fails) the test without Redis.
     *
     * @param port a port of the calling test's range
     */
    static ProxiedCluster start(int port) throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        Path folder = Files.createTempDirectory("exclusive-redis-proxied-" + port);
        FaultyProxy proxy = FaultyProxy.start(port);
        RedisServers.startClusterNode(
                folder,
                port,
                "--cluster-announce-ip",
                RedisServers.HOST,
                "--cluster-announce-port",
                Integer.toString(proxy.port()));
        RedisServers.run(List.of(
                "redis-cli",
                "-h",
                RedisServers.HOST,
                "-p",
                Integer.toString(port),
                "cluster",
                "addslotsrange",
                "0",
                "16383"));
        RedisServers.awaitTrue(
                () -> RedisServers.clusterStateOk(port), Duration.ofSeconds(30), "cluster_state:ok on port " + port);
        return new ProxiedCluster(port, folder, proxy);
    }

    /** @return the proxy every connection goes through */
    FaultyProxy proxy() {
        return proxy;
    }

    /** @return the seed a Cluster client is given: the proxy's address */
    String seed() {
        return RedisServers.HOST + ":" + proxy.port();
    }

    /** Stops the proxy and the node, and deletes the node's files. */
    @Override
    public void close() throws IOException, InterruptedException {
        proxy.close();
        RedisServers.stop(port);
        RedisServers.deleteFolder(folder);
    }
}

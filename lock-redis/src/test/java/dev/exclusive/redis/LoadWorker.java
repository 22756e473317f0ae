package dev.exclusive.redis;

import java.time.Duration;
import java.util.Map;

/**
 * A worker process of {@link RedisClusterLoadTest}: takes and frees distinct names on a Redis Cluster as fast as
 * its threads can, through a store the provider builds from settings, then prints one line
 * {@code released=<n> failed=<n> nanos=<n>}. Arguments: cluster nodes ({@code host:port,...}), name prefix,
 * names, threads, ttl in ms, fence retention (a setting such as {@code 2s}).
 */
public final class LoadWorker {

    private LoadWorker() {}

    public static void main(String[] args) throws InterruptedException {
        String nodes = args[0];
        String prefix = args[1];
        int names = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        Duration ttl = Duration.ofMillis(Long.parseLong(args[4]));
        String retention = args[5];
        NameChurn.Result result = NameChurn.run(
                new RedisLockStoreProvider()
                        .create("load", Map.of("nodes", nodes, "retention", retention, "pool-size", "8")),
                prefix,
                names,
                threads,
                ttl);
        System.out.printf("released=%d failed=%d nanos=%d%n", result.released(), result.failed(), result.nanos());
    }
}

package dev.exclusive.redis;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Builds {@code redis} stores. Settings (all under {@code exclusive.store.<name>.}):
 * <ul>
 * <li>{@code url}: {@code redis://[user:password@]host[:port][/database]}, {@code rediss://} for TLS. Required
 * for a standalone Redis; with {@code nodes} it is one more seed node and gives credentials and TLS, with
 * {@code sentinels} it gives credentials, database and TLS of the master (its host is not used).</li>
 * <li>{@code nodes}: Redis Cluster seed nodes, {@code host:port} separated by commas.</li>
 * <li>{@code sentinel-master} and {@code sentinels}: the master's name and the Sentinel nodes
 * ({@code host:port,...}).</li>
 * <li>{@code connect-timeout}, {@code socket-timeout}: {@code 500ms}, {@code 2s} or ISO-8601 ({@code PT2S});
 * default 2 s each.</li>
 * <li>{@code pool-size}: pooled connections for commands, default 16 (per node in Cluster).</li>
 * </ul>
 * Unknown keys are rejected, naming the key.
 */
public final class RedisLockStoreProvider implements LockStoreProvider {

    private static final Set<String> KEYS = new TreeSet<>(Set.of("url", "nodes", "sentinel-master", "sentinels",
            "connect-timeout", "socket-timeout", "pool-size"));
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m)");

    @Override
    public String type() {
        return "redis";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        for (String key : new TreeSet<>(settings.keySet())) {
            if (!KEYS.contains(key)) {
                throw new LockConfigurationException("Store '" + storeName + "' of type redis has no setting '" + key
                        + "' (exclusive.store." + storeName + "." + key + "); known settings: "
                        + String.join(", ", KEYS), storeName, key, null);
            }
        }
        RedisLockStore.Builder builder = RedisLockStore.builder().storeName(storeName);
        String url = value(settings, "url");
        String nodes = value(settings, "nodes");
        String master = value(settings, "sentinel-master");
        String sentinels = value(settings, "sentinels");
        if (nodes != null && (master != null || sentinels != null)) {
            throw problem(storeName, "nodes", "sets both nodes (Cluster) and sentinels (Sentinel); keep one");
        }
        if ((master == null) != (sentinels == null)) {
            String missing = master == null ? "sentinel-master" : "sentinels";
            throw problem(storeName, missing, "needs both sentinel-master and sentinels for Sentinel; set "
                    + key(storeName, missing));
        }
        if (url == null && nodes == null && master == null) {
            throw problem(storeName, "url", "needs a Redis to connect to: set " + key(storeName, "url")
                    + "=redis://host:6379 (or nodes for a Cluster, or sentinel-master and sentinels)");
        }
        if (url != null) {
            URI uri;
            try {
                uri = RedisKeys.withDefaultPort(new URI(url));
            } catch (URISyntaxException e) {
                throw problem(storeName, "url", "has a malformed url '" + url + "'", e);
            }
            if (!JedisURIHelper.isValid(uri) || !JedisURIHelper.isRedisScheme(uri)) {
                throw problem(storeName, "url", "needs a url like redis://[user:password@]host[:port][/database] "
                        + "or rediss://... for TLS, got '" + url + "'");
            }
            if (nodes != null && JedisURIHelper.hasDbIndex(uri) && JedisURIHelper.getDBIndex(uri) != 0) {
                throw problem(storeName, "url", "selects database " + JedisURIHelper.getDBIndex(uri)
                        + ", but a Redis Cluster has only database 0; remove /" + JedisURIHelper.getDBIndex(uri));
            }
            builder.url(uri);
        }
        if (nodes != null) {
            builder.clusterNodes(hosts(storeName, "nodes", nodes));
        }
        if (master != null) {
            builder.sentinel(master, hosts(storeName, "sentinels", sentinels));
        }
        String connect = value(settings, "connect-timeout");
        if (connect != null) {
            builder.connectTimeout(duration(storeName, "connect-timeout", connect));
        }
        String socket = value(settings, "socket-timeout");
        if (socket != null) {
            builder.socketTimeout(duration(storeName, "socket-timeout", socket));
        }
        String pool = value(settings, "pool-size");
        if (pool != null) {
            int size;
            try {
                size = Integer.parseInt(pool);
            } catch (NumberFormatException e) {
                size = 0;
            }
            if (size <= 0 || size > 10_000) {
                throw problem(storeName, "pool-size", "needs a pool-size between 1 and 10000, got '" + pool + "'");
            }
            builder.poolSize(size);
        }
        return builder.build();
    }

    private static String value(Map<String, String> settings, String key) {
        String value = settings.get(key);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static List<HostAndPort> hosts(String storeName, String key, String value) {
        List<HostAndPort> hosts = new ArrayList<>();
        for (String part : value.split(",")) {
            String node = part.strip();
            int colon = node.lastIndexOf(':');
            int port = -1;
            if (colon > 0) {
                try {
                    port = Integer.parseInt(node.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            if (port <= 0 || port > 65_535) {
                throw problem(storeName, key, "needs host:port entries separated by commas in " + key(storeName, key)
                        + ", got '" + node + "'");
            }
            String host = node.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            hosts.add(new HostAndPort(host, port));
        }
        return hosts;
    }

    private static Duration duration(String storeName, String key, String value) {
        Duration duration = null;
        Matcher simple = SIMPLE_DURATION.matcher(value.toLowerCase(Locale.ROOT));
        if (simple.matches()) {
            long amount = Long.parseLong(simple.group(1));
            duration = switch (simple.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                default -> Duration.ofMinutes(amount);
            };
        } else {
            try {
                duration = Duration.parse(value);
            } catch (DateTimeParseException e) {
                duration = null;
            }
        }
        if (duration == null || duration.compareTo(Duration.ofMillis(1)) < 0
                || duration.compareTo(Duration.ofMinutes(10)) > 0) {
            throw problem(storeName, key, "needs " + key(storeName, key) + " between 1ms and 10m, like 500ms, 2s or "
                    + "PT2S, got '" + value + "'");
        }
        return duration;
    }

    private static String key(String storeName, String key) {
        return "exclusive.store." + storeName + "." + key;
    }

    private static LockConfigurationException problem(String storeName, String key, String message) {
        return problem(storeName, key, message, null);
    }

    private static LockConfigurationException problem(String storeName, String key, String message,
            Throwable cause) {
        return new LockConfigurationException("Store '" + storeName + "' of type redis " + message, storeName, key,
                cause);
    }
}

package dev.exclusive.redis;

import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import dev.exclusive.spi.Secrets;
import dev.exclusive.spi.StoreSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Builds {@code redis} stores. Settings (all under {@code exclusive.store.<name>.}; see also
 * {@code lock-redis/SETTINGS.md}):
 * <ul>
 * <li>{@code url}: {@code redis://[user:password@]host[:port][/database]}, {@code rediss://} for TLS. Required
 * for a standalone Redis; with {@code nodes} it is one more seed node and gives credentials and TLS, with
 * {@code sentinels} it gives credentials, database and TLS of the master (its host is not used). A password in
 * the URL must be percent-encoded ({@code #} as {@code %23}, {@code @} as {@code %40}, {@code %} as {@code %25},
 * {@code /} as {@code %2F}, {@code :} as {@code %3A}, {@code ?} as {@code %3F}); simpler, leave it out of the
 * URL and set {@code password}.</li>
 * <li>{@code password}: the password of the Redis data nodes, as it is (no encoding); wins over the URL's. Taken
 * verbatim, surrounding spaces included. {@code user}: the ACL user, likewise; default: the URL's, else Redis's
 * {@code default} user. Sentinels are reached without credentials.</li>
 * <li>{@code nodes}: Redis Cluster seed nodes, {@code host:port} separated by commas.</li>
 * <li>{@code sentinel-master} and {@code sentinels}: the master's name and the Sentinel nodes
 * ({@code host:port,...}).</li>
 * <li>{@code connect-timeout}, {@code socket-timeout}: {@code 500ms}, {@code 2s} or ISO-8601 ({@code PT2S});
 * default 2 s each.</li>
 * <li>{@code pool-size}: pooled connections for commands, default 16 (per node in Cluster).</li>
 * <li>{@code min-replicas}: replicas that must confirm each acquisition and extension ({@code WAIT}), default 0;
 * {@code replica-timeout}: how long to wait for them, default 50 ms. Too few in time: the call fails with
 * {@code LockStoreUnavailableException} (an acquisition is released again first).</li>
 * <li>{@code retention}: how long a name's fence counter is kept after its last lease, default {@code 1h}, at
 * least 1 s. Fences keep increasing after it as long as the Redis clock does not step back by more than the ttl
 * plus the retention; each name used within that time keeps one key of about 150 bytes.</li>
 * <li>{@code audit-max-records}, {@code audit-max-age}: the bounds of the audit trail (default 1000 records, 7
 * days; see {@link AuditLimits}).</li>
 * </ul>
 * Unknown keys are rejected, naming the key. No value of {@code url}, {@code password} or any key ending in
 * {@code password} ever appears in a message, a log line or a {@code toString}: a URL is shown as
 * {@code redis://***@host:port}, or not at all when even its host cannot be read.
 */
public final class RedisLockStoreProvider implements LockStoreProvider {

    private static final Set<String> KEYS = new TreeSet<>(Set.of(
            "url",
            "user",
            "password",
            "nodes",
            "sentinel-master",
            "sentinels",
            "connect-timeout",
            "socket-timeout",
            "pool-size",
            "min-replicas",
            "replica-timeout",
            "retention"));

    static {
        KEYS.addAll(AuditLimits.SETTINGS);
    }

    /** The fix for a URL that a password broke, the usual cause of a malformed Redis URL. */
    private static final String ENCODE_PASSWORD = "a password in a url must be percent-encoded (# as %23, @ as %40,"
            + " % as %25, / as %2F, : as %3A, ? as %3F), or left out of the url and set in ";

    @Override
    public String type() {
        return "redis";
    }

    /** Builds a store whose subscriber runs on a plain daemon thread. */
    @Override
    public LockStore create(String storeName, Map<String, String> values) {
        return create(storeName, values, null);
    }

    /**
     * Builds a store whose one background thread (the release subscriber) comes from {@code threads}.
     *
     * @param threads the factory, such as the container's {@code ManagedThreadFactory}; {@code null} for plain
     *                daemon threads
     */
    @Override
    public LockStore create(String storeName, Map<String, String> values, ThreadFactory threads) {
        StoreSettings settings = StoreSettings.of(type(), storeName, values, KEYS);
        RedisLockStoreBuilder builder =
                RedisLockStore.builder().storeName(storeName).threadFactory(threads);
        String url = settings.text("url").orElse(null);
        String nodes = settings.text("nodes").orElse(null);
        String master = settings.text("sentinel-master").orElse(null);
        String sentinels = settings.text("sentinels").orElse(null);
        if (nodes != null && (master != null || sentinels != null)) {
            throw settings.problem("nodes", "sets both nodes (Cluster) and sentinels (Sentinel); keep one", null);
        }
        if ((master == null) != (sentinels == null)) {
            String missing = master == null ? "sentinel-master" : "sentinels";
            throw settings.problem(
                    missing,
                    "needs both sentinel-master and sentinels for Sentinel; set " + settings.key(missing),
                    null);
        }
        if (url == null && nodes == null && master == null) {
            throw settings.problem(
                    "url",
                    "needs a Redis to connect to: set " + settings.key("url")
                            + "=redis://host:6379 (or nodes for a Cluster, or sentinel-master and sentinels)",
                    null);
        }
        if (url != null) {
            builder.url(uri(settings, url, nodes != null));
        }
        settings.text("user").ifPresent(builder::user);
        String password = values.get("password"); // verbatim: spaces may be part of a password
        if (password != null && !password.isEmpty()) {
            builder.password(password);
        }
        if (nodes != null) {
            builder.clusterNodes(hosts(settings, "nodes", nodes));
        }
        if (master != null) {
            builder.sentinel(master, hosts(settings, "sentinels", sentinels));
        }
        settings.duration("connect-timeout", Duration.ofMillis(1), Duration.ofMinutes(10))
                .ifPresent(builder::connectTimeout);
        settings.duration("socket-timeout", Duration.ofMillis(1), Duration.ofMinutes(10))
                .ifPresent(builder::socketTimeout);
        settings.text("pool-size").ifPresent(pool -> builder.poolSize(poolSize(settings, pool)));
        settings.text("min-replicas").ifPresent(replicas -> builder.minReplicas(minReplicas(settings, replicas)));
        settings.duration("replica-timeout", Duration.ofMillis(1), Duration.ofMinutes(10))
                .ifPresent(builder::replicaTimeout);
        settings.duration("retention", Duration.ofSeconds(1), Duration.ofDays(36_500))
                .ifPresent(builder::fenceRetention);
        builder.auditLimits(AuditLimits.of(settings));
        return builder.build();
    }

    /**
     * Reads the url setting. Its messages show the URL masked, and carry no cause: a {@link URISyntaxException}
     * repeats the whole input, password included.
     */
    private static URI uri(StoreSettings settings, String url, boolean cluster) {
        URI uri;
        try {
            uri = RedisKeys.withDefaultPort(new URI(url));
        } catch (URISyntaxException e) {
            throw settings.problem(
                    "url",
                    "has a malformed url " + Secrets.describeUrl(url) + ": " + e.getReason() + " at index "
                            + e.getIndex() + " of the value set; " + ENCODE_PASSWORD + settings.key("password"),
                    null);
        }
        if (!JedisURIHelper.isValid(uri)) { // a host, a port, and redis:// or rediss://
            throw settings.problem(
                    "url",
                    "needs a url like redis://[user:password@]host[:port][/database] or rediss://... for TLS, got "
                            + Secrets.describeUrl(url) + ", which does not read as one; " + ENCODE_PASSWORD
                            + settings.key("password"),
                    null);
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/") && !path.matches("/\\d{1,9}")) {
            throw settings.problem(
                    "url",
                    "needs a database number (0, 1, ...) after the host in " + Secrets.describeUrl(url)
                            + ", got a path that is not one; write redis://host:port/0 or leave the path out",
                    null);
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) { // not shown: it may hold a password
            throw settings.problem(
                    "url",
                    "takes nothing after the database in " + Secrets.describeUrl(url) + ", got a query or fragment,"
                            + " which the store would ignore; set the password with " + settings.key("password")
                            + ", the user with " + settings.key("user") + ", and TLS with rediss://",
                    null);
        }
        if (cluster && JedisURIHelper.hasDbIndex(uri) && JedisURIHelper.getDBIndex(uri) != 0) {
            throw settings.problem(
                    "url",
                    "selects database " + JedisURIHelper.getDBIndex(uri)
                            + ", but a Redis Cluster has only database 0; remove /" + JedisURIHelper.getDBIndex(uri),
                    null);
        }
        return uri;
    }

    private static int poolSize(StoreSettings settings, String pool) {
        int size;
        try {
            size = Integer.parseInt(pool);
        } catch (NumberFormatException e) {
            size = 0;
        }
        if (size <= 0 || size > 10_000) {
            throw settings.problem("pool-size", "needs a pool-size between 1 and 10000, got '" + pool + "'", null);
        }
        return size;
    }

    private static int minReplicas(StoreSettings settings, String replicas) {
        int count;
        try {
            count = Integer.parseInt(replicas);
        } catch (NumberFormatException e) {
            count = -1;
        }
        if (count < 0 || count > 100) {
            throw settings.problem(
                    "min-replicas", "needs a min-replicas between 0 and 100, got '" + replicas + "'", null);
        }
        return count;
    }

    private static List<HostAndPort> hosts(StoreSettings settings, String key, String value) {
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
                throw settings.problem(
                        key,
                        "needs host:port entries separated by commas in " + settings.key(key) + ", got '" + node + "'",
                        null);
            }
            String host = node.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            hosts.add(new HostAndPort(host, port));
        }
        return hosts;
    }
}

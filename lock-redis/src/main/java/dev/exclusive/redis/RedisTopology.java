package dev.exclusive.redis;

import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.JedisURIHelper;
import redis.clients.jedis.util.Pool;

/**
 * The client a store talks through, and what depends on its kind (standalone, Sentinel or Cluster): opening it from
 * a builder's settings, the connection pools behind it, and the keyspaces a listing scans.
 *
 * @param client  the client
 * @param owned   whether the store opened it (and closes it), or the application did
 * @param target  what it connects to, for messages; never credentials
 * @param secrets      what the store's messages and logs must mask
 * @param resendWindow how long after a call began its client may still send it again after a lost reply (a
 *                     Cluster client retries a command whose read timed out); {@link Duration#ZERO} for a client
 *                     that never sends a command twice
 */
record RedisTopology(UnifiedJedis client, boolean owned, String target, Secrets secrets, Duration resendWindow) {

    private static final Logger LOG = System.getLogger(RedisTopology.class.getName());

    /**
     * How long an application's own client, other than a {@link RedisClient} or {@link RedisSentinelClient} (which
     * send a command once), is taken to resend a command: its settings cannot be read, and Jedis's Cluster client
     * gives up after 10 s unless told otherwise (5 attempts, a 2 s socket timeout each).
     */
    static final Duration APPLICATION_RESEND_WINDOW = Duration.ofMinutes(1);

    /** A topology whose client never sends a command twice. */
    RedisTopology(UnifiedJedis client, boolean owned, String target, Secrets secrets) {
        this(client, owned, target, secrets, Duration.ZERO);
    }

    /**
     * What a {@link RedisLockStoreBuilder} collected. One of {@code url}, {@code clusterNodes} or
     * {@code sentinelMaster} chooses the topology; {@code user} and {@code password}, when set, win over the
     * URL's.
     */
    record Settings(
            URI url,
            String user,
            String password,
            Set<HostAndPort> clusterNodes,
            String sentinelMaster,
            Set<HostAndPort> sentinels,
            Duration connectTimeout,
            Duration socketTimeout,
            int poolSize,
            String storeName) {

        /** @return what to mask in the store's messages: the URL's user info and the password */
        Secrets secrets() {
            return Secrets.rulesOnly()
                    .withUrl(url == null ? null : url.toString())
                    .withValue(password);
        }

        /** Names neither URL nor password. */
        @Override
        public String toString() {
            return "Settings[store " + storeName + ", " + (url == null ? "no url" : "a url") + ", cluster nodes "
                    + describe(clusterNodes) + ", sentinel master " + sentinelMaster + " via " + describe(sentinels)
                    + "]";
        }
    }

    /** @return the topology of a client the application opened and closes */
    static RedisTopology of(UnifiedJedis client) {
        return new RedisTopology(
                client,
                false,
                client.getClass().getSimpleName() + " of the application",
                Secrets.rulesOnly(),
                client instanceof RedisClient || client instanceof RedisSentinelClient
                        ? Duration.ZERO
                        : APPLICATION_RESEND_WINDOW);
    }

    /**
     * Opens a client. Standalone and Sentinel clients connect lazily to the master; Cluster and Sentinel clients
     * ask the cluster or the sentinels for the topology now.
     *
     * @throws IllegalStateException         if no topology was given
     * @throws LockStoreUnavailableException if a Cluster or the Sentinels cannot be reached now
     */
    static RedisTopology open(Settings settings) {
        JedisClientConfig config = dataNodeConfig(settings);
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(settings.poolSize() + 1);
        pool.setMaxIdle(settings.poolSize() + 1);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(settings.socketTimeout());
        try {
            if (!settings.clusterNodes().isEmpty()) {
                Set<HostAndPort> nodes = new LinkedHashSet<>(settings.clusterNodes());
                if (settings.url() != null) {
                    nodes.add(JedisURIHelper.getHostAndPort(settings.url()));
                }
                RedisClusterClient cluster = RedisClusterClient.builder()
                        .nodes(nodes)
                        .clientConfig(config)
                        .poolConfig(pool)
                        .maxAttempts(3)
                        .maxTotalRetriesDuration(settings.connectTimeout().plus(settings.socketTimeout()))
                        .build();
                // the last attempt may start just before maxTotalRetriesDuration ends, and take a connect and a read
                Duration retries = settings.connectTimeout().plus(settings.socketTimeout());
                return new RedisTopology(
                        cluster, true, "Redis Cluster " + describe(nodes), settings.secrets(), retries.multipliedBy(2));
            }
            if (settings.sentinelMaster() != null) {
                RedisSentinelClient sentinel = RedisSentinelClient.builder()
                        .masterName(settings.sentinelMaster())
                        .sentinels(settings.sentinels())
                        .clientConfig(config)
                        .sentinelClientConfig(baseConfig(settings).build())
                        .poolConfig(pool)
                        .build();
                return new RedisTopology(
                        sentinel,
                        true,
                        "Redis Sentinel master '" + settings.sentinelMaster() + "' via "
                                + describe(settings.sentinels()),
                        settings.secrets());
            }
        } catch (JedisException e) {
            throw RedisFailures.unreachable(settings, e);
        }
        URI url = settings.url();
        if (url == null) {
            throw new IllegalStateException("A Redis store needs a URL, cluster nodes or sentinels");
        }
        HostAndPort server = JedisURIHelper.getHostAndPort(url);
        RedisClient standalone = RedisClient.builder()
                .hostAndPort(server)
                .clientConfig(config)
                .poolConfig(pool)
                .build();
        return new RedisTopology(
                standalone,
                true,
                (JedisURIHelper.isRedisSSLScheme(url) ? "rediss://" : "redis://") + server,
                settings.secrets());
    }

    /** @return the pools behind the client, whose idle connections die together when Redis restarts */
    @SuppressWarnings("deprecation") // JedisCluster: still accepted from applications that use it
    List<Pool<Connection>> pools() {
        List<Pool<Connection>> pools = new ArrayList<>();
        if (client instanceof RedisClient standalone) {
            pools.add(standalone.getPool());
        } else if (client instanceof RedisSentinelClient sentinel) {
            pools.addAll(sentinel.getPrimaryNodesConnectionMap().values());
        } else if (client instanceof RedisClusterClient cluster) {
            pools.addAll(cluster.getClusterNodes().values());
        } else if (client instanceof JedisCluster cluster) {
            pools.addAll(cluster.getClusterNodes().values());
        }
        return pools;
    }

    /**
     * A connection of its own for the release subscriber, which holds it while subscribed and may drop it from
     * another thread when it falls silent: from the client's pool in standalone mode, the current master's in
     * Sentinel mode, the first node's that answers in Cluster mode (a {@code PUBLISH} reaches every node).
     *
     * @return a connection to give back with {@link Connection#close()}, or {@code null} for a client whose
     *         pools the store cannot see (an application's own {@link UnifiedJedis} of another kind)
     * @throws JedisException if no pool gives one
     */
    Connection subscriberConnection() {
        JedisException last = null;
        for (Pool<Connection> pool : pools()) {
            try {
                return pool.getResource();
            } catch (JedisException e) {
                last = e;
            }
        }
        if (last != null) {
            throw last;
        }
        return null;
    }

    /**
     * A connection to the master that holds {@code key}, so that a {@code WAIT} sent after a script on it covers
     * that script's writes ({@code WAIT} counts the writes of its own connection).
     *
     * @throws IllegalStateException for a client whose pools the store cannot see
     */
    Connection connectionFor(String key) {
        if (client instanceof RedisClusterClient cluster) {
            return cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
        }
        List<Pool<Connection>> pools = pools();
        if (pools.size() != 1) {
            throw new IllegalStateException("min-replicas needs a standalone, Sentinel or Cluster client of the store's"
                    + " own; this one is " + target);
        }
        return pools.get(0).getResource();
    }

    /**
     * Whether the server (the first node that answers, in a Cluster) has sharded pub/sub: {@code COMMAND INFO
     * SPUBLISH SSUBSCRIBE} describes both. A server before 7.0 answers {@code nil} for each, as one whose operator
     * removed them with {@code rename-command} does, although its version says 7; the version decides only when
     * {@code COMMAND} itself is refused (renamed, or denied by an ACL). When {@code INFO} is refused too, nothing
     * tells, and the answer is no: {@code PUBLISH} works on every version and Cluster, where a guess of yes would
     * fail every release. A warning says so, since instances whose users may ask would decide otherwise and not
     * hear these releases.
     *
     * @throws JedisException if no node answers
     */
    boolean shardedPubSub() {
        try (Connection connection = subscriberConnection()) {
            Jedis jedis = connection == null ? null : new Jedis(connection);
            try {
                Object described = jedis == null
                        ? client.sendCommand(Protocol.Command.COMMAND, "INFO", "SPUBLISH", "SSUBSCRIBE")
                        : jedis.sendCommand(Protocol.Command.COMMAND, "INFO", "SPUBLISH", "SSUBSCRIBE");
                return described instanceof List<?> commands
                        && commands.size() == 2
                        && commands.stream().allMatch(Objects::nonNull);
            } catch (JedisDataException commandRefused) {
                try {
                    return majorVersion(jedis == null ? client.info("server") : jedis.info("server")) >= 7;
                } catch (JedisDataException infoRefused) {
                    LOG.log(
                            Level.WARNING,
                            "Redis at {0} refuses both COMMAND and INFO to this store''s user ({1}; {2}), so the"
                                    + " store cannot tell whether it has sharded pub/sub: releases go by PUBLISH."
                                    + " Allow the user COMMAND or INFO, or give every store on this Redis the same"
                                    + " user, so that all of them publish and listen alike",
                            target,
                            commandRefused.getMessage(),
                            infoRefused.getMessage());
                    return false;
                }
            }
        }
    }

    /**
     * @return the major version in {@code redis_version} of an {@code INFO server} reply
     * @throws JedisException if it names none
     */
    private static int majorVersion(String info) {
        try {
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    String version = line.substring("redis_version:".length()).trim();
                    int dot = version.indexOf('.');
                    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
                }
            }
            throw new JedisException("INFO server names no redis_version");
        } catch (NumberFormatException e) {
            throw new JedisException("INFO server names no readable redis_version", e);
        }
    }

    /** One keyspace to scan: the client itself, or one master of a cluster. */
    interface Keyspace {
        ScanResult<String> scan(String cursor, ScanParams params);
    }

    /** @return every keyspace that holds locks: the client's one, or each master's in a Cluster */
    @SuppressWarnings("deprecation") // JedisCluster: still accepted from applications that use it
    List<Keyspace> keyspaces() {
        Map<String, ConnectionPool> nodes = null;
        if (client instanceof RedisClusterClient cluster) {
            nodes = cluster.getClusterNodes();
        } else if (client instanceof JedisCluster cluster) {
            nodes = cluster.getClusterNodes();
        }
        if (nodes == null) {
            return List.of(client::scan);
        }
        List<Keyspace> masters = new ArrayList<>();
        for (ConnectionPool pool : nodes.values()) {
            if (isMaster(pool)) {
                masters.add((cursor, params) -> {
                    try (Connection connection = pool.getResource()) {
                        return new Jedis(connection).scan(cursor, params);
                    }
                });
            }
        }
        return masters;
    }

    /** @return the nodes as {@code host:port,...} */
    static String describe(Collection<HostAndPort> nodes) {
        return nodes.stream().map(HostAndPort::toString).collect(Collectors.joining(","));
    }

    private static boolean isMaster(ConnectionPool pool) {
        try (Connection connection = pool.getResource()) {
            List<Object> role = new Jedis(connection).role();
            return "master".equals(RedisReplies.text(role.get(0)));
        }
    }

    /**
     * The data nodes' configuration: timeouts and client name; credentials from the {@code user} and
     * {@code password} settings or else the URL's user info (without a colon it is the password alone, as
     * {@code redis-cli} reads it); TLS and database from the URL.
     */
    @SuppressWarnings("deprecation") // ssl(boolean): the plain switch that rediss:// means, default TLS settings
    private static JedisClientConfig dataNodeConfig(Settings settings) {
        DefaultJedisClientConfig.Builder config = baseConfig(settings);
        URI url = settings.url();
        String user = null;
        String password = null;
        if (url != null) {
            // split before decoding: an encoded colon (%3A) belongs to the user or the password
            String userInfo = url.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                user = colon < 0 ? null : decode(userInfo.substring(0, colon));
                password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            }
            config.ssl(JedisURIHelper.isRedisSSLScheme(url));
            if (settings.clusterNodes().isEmpty()) {
                config.database(JedisURIHelper.getDBIndex(url));
            }
        }
        if (settings.user() != null) {
            user = settings.user();
        }
        if (settings.password() != null) {
            password = settings.password();
        }
        return config.user(user == null || user.isEmpty() ? null : user)
                .password(password == null || password.isEmpty() ? null : password)
                .build();
    }

    /** @return percent-decoded as {@link URI#getUserInfo()} decodes ({@code +} stays {@code +}) */
    private static String decode(String raw) {
        return java.net.URLDecoder.decode(raw.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Timeouts and client name, without credentials: the Sentinels' configuration. */
    private static DefaultJedisClientConfig.Builder baseConfig(Settings settings) {
        return DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(
                        Math.toIntExact(settings.connectTimeout().toMillis()))
                .socketTimeoutMillis(Math.toIntExact(settings.socketTimeout().toMillis()))
                .clientName("exclusive-" + settings.storeName().replaceAll("[^A-Za-z0-9_.-]", "_"));
    }
}

package dev.exclusive.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.JedisURIHelper;
import redis.clients.jedis.util.Pool;

/**
 * Locks shared by every server connected to the same Redis: standalone, Sentinel or Cluster, on Jedis.
 *
 * <p>Keys. A lock named {@code n} has two keys: a hash {@code exclusive:lock:{n'}} holding owner, holder,
 * acquisition time and fence, which expires by Redis's own {@code PX} at the end of the lease; and a
 * counter {@code exclusive:fence:{n'}} holding the last fence granted. {@code n'} is {@code n} with {@code %},
 * <code>}</code> and lone surrogates escaped, so it is the hash tag of both keys whatever the name holds: both
 * live in one Cluster slot, two names never share a key, and a prefix of names is a prefix of keys.
 *
 * <p>Algorithm. Every operation is one Lua script (resources {@code dev/exclusive/redis/*.lua}, run by
 * {@code EVALSHA}, sent again with {@code EVAL} on {@code NOSCRIPT}). Redis runs a script alone: no other
 * command, from any client, runs between its first and last step, so each check-then-act below is atomic.
 * <ol>
 * <li>acquire: if a live hash exists ({@code PTTL} above 0, or -1) and its owner is another, answer busy with its
 * {@code PTTL}, which waiters use to sleep until the lease ends. If its owner is the caller (a retry of an attempt
 * whose reply was lost: Jedis's Cluster client sends a script again after a read timeout), {@code PEXPIRE} it to
 * the ttl, push the counter's retention out as extend does, and answer acquired with that hold's fence and
 * acquisition time. Else read {@code TIME}; fence = max(counter + 1, Redis time in µs); set
 * the counter to the fence with {@code PX} ttl + retention; write the hash and {@code PEXPIRE} it to the ttl plus
 * 2 ms (Redis counts whole milliseconds, so without the slack the key could vanish before the holder's own
 * estimate of its lease ends);
 * answer the fence, acquisition and expiry times by the Redis clock.</li>
 * <li>release: if the hash's owner is the caller, delete it and {@code PUBLISH} the name; else answer
 * {@code false}. A hash whose {@code PX} passed reads as absent, so a late release never frees the next
 * holder.</li>
 * <li>extend: if the owner matches, {@code PEXPIRE} the hash to the new ttl and push the counter's retention out
 * beyond it.</li>
 * <li>force-release: delete the hash if it exists; then {@code PUBLISH}.</li>
 * <li>inspect: {@code PTTL}, the fields and {@code TIME}, read at one instant.</li>
 * </ol>
 * Expiry is decided by the Redis server alone ({@code PX}); no client clock decides anything. On Redis 7 a
 * script may call {@code TIME}: scripts replicate by their effects, so replicas and the AOF receive the values
 * written, not the script.
 *
 * <p>Fences. A fence is greater than every fence granted for the name before, across releases, expiries and
 * stores, as long as the name's counter is kept: it is refreshed on every acquisition and extension and
 * expires 24 hours after the end of the last lease (see {@link Builder#fenceRetention}), so a million one-off
 * names leave nothing behind a day later. After that, or when the counter is lost (a restart without
 * persistence, a failover that lost the last writes), fences still increase as long as the Redis server's clock
 * has moved forward past the last fence, since a fence is never below the Redis time in microseconds.
 *
 * <p>Durability. A lock is exactly as durable as Redis's data: a lock held when Redis restarts without
 * persistence (or fails over before the write reached a replica) is gone, and another caller may acquire it.
 * Use fences for work that must not run twice.
 *
 * <p>Waiting. A release publishes the name on {@value RedisKeys#RELEASED_CHANNEL}. Each store has one daemon
 * thread holding one subscribed connection, which signals the waiting threads of this JVM through
 * {@link LocalSignals}: no thread and no connection per waiter. Messages can be lost (the subscription is
 * re-established after Redis restarts, and anything published meanwhile is missed), so waiters also re-check
 * with a backoff of 100 ms to 1 s, never beyond the holder's expiry.
 *
 * <p>Listing. {@code SCAN MATCH} with the escaped prefix (glob characters {@code * ? [ ] \} escaped), on every
 * master in Cluster; each key found is read with the inspect script, which leaves out expired locks.
 *
 * <p>Failures. Every Jedis failure (connection refused, timeouts, a Redis gone mid-call, Cluster errors, an
 * exhausted pool) becomes {@link LockStoreUnavailableException}: within the connect timeout plus the socket
 * timeout (default 2 s each), plus at most one socket timeout waiting for a pooled connection. Idle pooled
 * connections are dropped after a connection failure, so the same store works again once Redis is back.
 * An acquisition whose reply was lost may have taken the lock: a retry by the same owner finds that hold and
 * answers acquired with it; without a retry the lease expires at its ttl.
 *
 * <p>Thread-safe. Build one with {@link #create(URI)}, {@link #builder()}, or {@link #using(UnifiedJedis)} on
 * a client the application owns.
 */
public final class RedisLockStore implements LockStore {

    /** Default time to open a connection. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** Default time to wait for a reply (and for a free pooled connection). */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);

    /** Default number of pooled connections for commands (per node in Cluster); the subscriber takes one more. */
    public static final int DEFAULT_POOL_SIZE = 16;

    /** How long a name's fence counter is kept after its last lease ends, unless the builder says otherwise. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofHours(24);

    private static final WaitPolicy WAIT_POLICY = WaitPolicy.backoff(Duration.ofMillis(100), Duration.ofSeconds(1));
    private static final int SCAN_COUNT = 500;

    private final UnifiedJedis client;
    private final boolean ownsClient;
    private final String storeName;
    private final String target;
    private final String fenceRetention;
    private final LocalSignals signals = new LocalSignals();
    private final ReleaseSubscriber subscriber;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedisLockStore(
            UnifiedJedis client, boolean ownsClient, String storeName, String target, Duration fenceRetention) {
        this.client = Objects.requireNonNull(client, "client");
        this.fenceRetention = Long.toString(fenceRetention.toMillis());
        this.ownsClient = ownsClient;
        this.storeName = Objects.requireNonNull(storeName, "storeName");
        this.target = target;
        this.subscriber = new ReleaseSubscriber(client, signals, storeName);
    }

    /**
     * A store on a standalone Redis with the default timeouts and pool size. Connects lazily: an unreachable
     * Redis shows at the first call.
     *
     * @param url {@code redis://[user:password@]host[:port][/database]}, or {@code rediss://} for TLS
     * @return a new store, which closes its connections on {@link #close()}
     * @throws IllegalArgumentException if the URL is not a Redis URL
     */
    public static RedisLockStore create(URI url) {
        return builder().url(url).build();
    }

    /**
     * A store on a client the application owns and closes: a {@link RedisClient}, {@link RedisSentinelClient},
     * {@link RedisClusterClient} or any other {@link UnifiedJedis} on a connection pool. {@link #close()} leaves
     * the client open.
     *
     * <p>The store's subscriber (for waking waiters) needs a connection of its own: it takes one from the client
     * through {@link UnifiedJedis#subscribe}, from the pool in standalone and Sentinel mode, from one node's pool
     * in Cluster mode, and holds it until the store is closed (taking another after a reconnect). Size the
     * client's pool one larger than the application needs. A {@code UnifiedJedis} on one single connection
     * cannot serve both and must not be used.
     *
     * @param client an open client
     * @return a new store that does not close {@code client}
     */
    public static RedisLockStore using(UnifiedJedis client) {
        return using(client, "redis");
    }

    /**
     * Like {@link #using(UnifiedJedis)}, naming the store in messages.
     *
     * @param client    an open client
     * @param storeName the configured store's name
     * @return a new store that does not close {@code client}
     */
    public static RedisLockStore using(UnifiedJedis client, String storeName) {
        return new RedisLockStore(
                client,
                false,
                storeName,
                client.getClass().getSimpleName() + " of the application",
                DEFAULT_FENCE_RETENTION);
    }

    /** @return a builder for standalone, Sentinel and Cluster stores with explicit timeouts */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        List<?> reply = (List<?>) call(
                name,
                "acquire",
                () -> RedisScript.ACQUIRE.run(
                        client,
                        List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name)),
                        List.of(owner, holder.encode(), millis(ttl), fenceRetention)));
        if (number(reply.get(0)) == 1) {
            return new Acquisition.Acquired(
                    number(reply.get(1)),
                    Instant.ofEpochMilli(number(reply.get(2))),
                    Instant.ofEpochMilli(number(reply.get(3))));
        }
        long remaining = number(reply.get(1));
        return remaining >= 0 ? new Acquisition.Busy(Duration.ofMillis(remaining)) : Acquisition.Busy.unknown();
    }

    @Override
    public boolean release(String name, String owner) {
        Object reply = call(
                name,
                "release",
                () -> RedisScript.RELEASE.run(
                        client, List.of(RedisKeys.lockKey(name)), List.of(owner, RedisKeys.RELEASED_CHANNEL, name)));
        return number(reply) == 1;
    }

    @Override
    public boolean forceRelease(String name) {
        Object reply = call(
                name,
                "force-release",
                () -> RedisScript.FORCE_RELEASE.run(
                        client, List.of(RedisKeys.lockKey(name)), List.of(RedisKeys.RELEASED_CHANNEL, name)));
        return number(reply) == 1;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        Object reply = call(
                name,
                "extend",
                () -> RedisScript.EXTEND.run(
                        client,
                        List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name)),
                        List.of(owner, millis(ttl), fenceRetention)));
        return number(reply) == 1;
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return Optional.ofNullable(call(name, "inspect", () -> inspectKey(RedisKeys.lockKey(name), name)));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        return call(null, "list locks", () -> {
            String pattern = RedisKeys.scanPattern(prefix);
            List<LockEntry> found = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Scanner scanner : scanners()) {
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page =
                            scanner.scan(cursor, new ScanParams().match(pattern).count(SCAN_COUNT));
                    List<String> keys = new ArrayList<>();
                    List<String> names = new ArrayList<>();
                    for (String key : page.getResult()) {
                        String name = seen.add(key) ? RedisKeys.nameOf(key) : null;
                        if (name != null && name.startsWith(prefix)) {
                            keys.add(key);
                            names.add(name);
                        }
                    }
                    for (LockEntry entry : inspectAll(keys, names)) {
                        found.add(entry);
                        if (found.size() >= limit) {
                            return found;
                        }
                    }
                    cursor = page.getCursor();
                } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
            }
            return found;
        });
    }

    /** Waiters re-check at most every second: release messages can be lost while the subscriber reconnects. */
    @Override
    public WaitPolicy waitPolicy() {
        return WAIT_POLICY;
    }

    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        subscriber.start();
        signals.await(name, maxWait, () -> {
            try {
                return client.exists(RedisKeys.lockKey(name));
            } catch (JedisException e) {
                return false; // let the caller try again at once: its next call reports the outage
            }
        });
    }

    @Override
    public void ping() {
        call(null, "ping", client::ping);
    }

    /** Stops the subscriber and, unless the client belongs to the application, closes the connections. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        subscriber.close();
        signals.signalAll();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + storeName + " on " + target + "]";
    }

    /** @return the subscriber, for tests that wait until it listens */
    ReleaseSubscriber subscriber() {
        return subscriber;
    }

    /** @return the client, for tests */
    UnifiedJedis client() {
        return client;
    }

    private LockEntry inspectKey(String key, String name) {
        return entry(name, RedisScript.INSPECT.run(client, List.of(key), List.of()));
    }

    /**
     * Inspects a page of keys in one round trip (a pipeline of the inspect script, routed by key on a Cluster),
     * so that listing 10,000 locks costs a few dozen round trips, not 10,000. A key whose script is not loaded
     * on its node is inspected on its own, which loads it.
     */
    private List<LockEntry> inspectAll(List<String> keys, List<String> names) {
        if (keys.isEmpty()) {
            return List.of();
        }
        List<Response<Object>> replies = new ArrayList<>(keys.size());
        try (AbstractPipeline pipeline = client.pipelined()) {
            for (String key : keys) {
                replies.add(pipeline.evalsha(RedisScript.INSPECT.sha(), List.of(key), List.of()));
            }
            pipeline.sync();
        }
        List<LockEntry> entries = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            Object reply;
            try {
                reply = replies.get(i).get();
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) {
                    throw e;
                }
                reply = RedisScript.INSPECT.run(client, List.of(keys.get(i)), List.of());
            }
            LockEntry entry = entry(names.get(i), reply);
            if (entry != null) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /** @return the live lock the inspect script described, or {@code null} for its "no live lock" answer */
    private static LockEntry entry(String name, Object answer) {
        List<?> reply = (List<?>) answer;
        if (reply == null) {
            return null;
        }
        long acquired = number(reply.get(2));
        long remaining = number(reply.get(4));
        long now = number(reply.get(5));
        return new LockEntry(
                name,
                text(reply.get(0)),
                LockHolder.decode(text(reply.get(1))),
                Instant.ofEpochMilli(acquired),
                Instant.ofEpochMilli(now + remaining),
                Duration.ofMillis(remaining),
                number(reply.get(3)));
    }

    /** Runs a Redis call, turning every Jedis failure into {@link LockStoreUnavailableException}. */
    private <T> T call(String lockName, String action, Supplier<T> work) {
        if (closed.get()) {
            throw new IllegalStateException("Redis store '" + storeName + "' is closed");
        }
        try {
            return work.get();
        } catch (JedisException e) {
            if (e instanceof JedisConnectionException || e.getCause() instanceof JedisConnectionException) {
                dropIdleConnections();
            }
            String what = lockName == null ? action : action + " lock '" + lockName + "'";
            throw new LockStoreUnavailableException(
                    "Redis store '" + storeName + "' could not " + what + " on " + target + ": " + e.getMessage()
                            + "; check that Redis is running and reachable",
                    lockName,
                    storeName,
                    e);
        }
    }

    /**
     * Drops idle pooled connections after a connection failure: after a Redis restart they are all dead, and
     * each would fail one call before the pool noticed.
     */
    private void dropIdleConnections() {
        try {
            for (Pool<Connection> pool : pools()) {
                pool.clear();
            }
        } catch (RuntimeException e) {
            // best effort: the pool also validates idle connections in the background
        }
    }

    @SuppressWarnings("deprecation") // JedisCluster: still accepted from applications that use it
    private List<Pool<Connection>> pools() {
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

    /** One keyspace to scan: the client itself, or one master of a cluster. */
    private interface Scanner {
        ScanResult<String> scan(String cursor, ScanParams params);
    }

    @SuppressWarnings("deprecation") // JedisCluster: still accepted from applications that use it
    private List<Scanner> scanners() {
        Map<String, ConnectionPool> nodes = null;
        if (client instanceof RedisClusterClient cluster) {
            nodes = cluster.getClusterNodes();
        } else if (client instanceof JedisCluster cluster) {
            nodes = cluster.getClusterNodes();
        }
        if (nodes == null) {
            return List.of(client::scan);
        }
        List<Scanner> masters = new ArrayList<>();
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

    private static boolean isMaster(ConnectionPool pool) {
        try (Connection connection = pool.getResource()) {
            List<Object> role = new Jedis(connection).role();
            return "master".equals(text(role.get(0)));
        }
    }

    private static String millis(Duration duration) {
        return Long.toString(Math.max(1, duration.toMillis()));
    }

    private static long number(Object reply) {
        return ((Number) reply).longValue();
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : (String) reply;
    }

    /**
     * Settings of a store that opens and owns its connections. One of {@link #url}, {@link #clusterNodes} or
     * {@link #sentinel} chooses the topology; the URL also carries credentials, database and TLS for the others.
     */
    public static final class Builder {

        private URI url;
        private final Set<HostAndPort> clusterNodes = new LinkedHashSet<>();
        private String sentinelMaster;
        private final Set<HostAndPort> sentinels = new LinkedHashSet<>();
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
        private int poolSize = DEFAULT_POOL_SIZE;
        private String storeName = "redis";
        private Duration fenceRetention = DEFAULT_FENCE_RETENTION;

        private Builder() {}

        /**
         * @param retention how long a name's fence counter is kept after its last lease ends; at least 1 ms.
         *                  Fences strictly increase within it whatever the clocks do (see the class javadoc).
         * @return this builder
         */
        public Builder fenceRetention(Duration retention) {
            if (retention == null || retention.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("fence retention must be at least 1 ms, got " + retention);
            }
            fenceRetention = retention;
            return this;
        }

        /**
         * @param url {@code redis://[user:password@]host[:port][/database]} or {@code rediss://} (TLS): the
         *            server of a standalone store; with {@link #clusterNodes} one more seed node, with
         *            {@link #sentinel} only credentials, database and TLS of the master (its host is not used)
         * @return this builder
         * @throws IllegalArgumentException if it is not a Redis URL
         */
        public Builder url(URI url) {
            URI withPort = RedisKeys.withDefaultPort(url);
            if (!JedisURIHelper.isValid(withPort) || !JedisURIHelper.isRedisScheme(withPort)) {
                throw new IllegalArgumentException("Not a Redis URL: '" + url
                        + "'; expected redis://[user:password@]host[:port][/database] or rediss://...");
            }
            this.url = withPort;
            return this;
        }

        /**
         * @param nodes seed nodes of a Redis Cluster; the client discovers the rest
         * @return this builder
         */
        public Builder clusterNodes(Collection<HostAndPort> nodes) {
            clusterNodes.addAll(nodes);
            return this;
        }

        /**
         * @param master    the name Sentinel monitors the master under
         * @param sentinels the Sentinel nodes (without authentication)
         * @return this builder
         */
        public Builder sentinel(String master, Collection<HostAndPort> sentinels) {
            this.sentinelMaster = Objects.requireNonNull(master, "master");
            this.sentinels.addAll(sentinels);
            return this;
        }

        /**
         * @param timeout time to open a connection; positive
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            connectTimeout = positive(timeout, "connect timeout");
            return this;
        }

        /**
         * @param timeout time to wait for a reply, and for a free pooled connection; positive
         * @return this builder
         */
        public Builder socketTimeout(Duration timeout) {
            socketTimeout = positive(timeout, "socket timeout");
            return this;
        }

        /**
         * @param size pooled connections for commands (per node in Cluster); positive. The subscriber takes one
         *             more.
         * @return this builder
         */
        public Builder poolSize(int size) {
            if (size <= 0) {
                throw new IllegalArgumentException("pool size must be positive, got " + size);
            }
            poolSize = size;
            return this;
        }

        /**
         * @param name the configured store's name, used in messages
         * @return this builder
         */
        public Builder storeName(String name) {
            storeName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Builds the store. Standalone and Sentinel stores connect lazily to the master; Cluster and Sentinel
         * clients ask the cluster or the sentinels for the topology now.
         *
         * @return a new store, which owns its client
         * @throws IllegalStateException         if no topology was given
         * @throws LockStoreUnavailableException if a Cluster or the Sentinels cannot be reached now
         */
        public RedisLockStore build() {
            JedisClientConfig config = clientConfig(url != null);
            ConnectionPoolConfig pool = new ConnectionPoolConfig();
            pool.setMaxTotal(poolSize + 1);
            pool.setMaxIdle(poolSize + 1);
            pool.setMinIdle(0);
            pool.setBlockWhenExhausted(true);
            pool.setMaxWait(socketTimeout);
            String target;
            try {
                if (!clusterNodes.isEmpty()) {
                    Set<HostAndPort> nodes = new LinkedHashSet<>(clusterNodes);
                    if (url != null) {
                        nodes.add(JedisURIHelper.getHostAndPort(url));
                    }
                    target = "Redis Cluster " + describe(nodes);
                    RedisClusterClient cluster = RedisClusterClient.builder()
                            .nodes(nodes)
                            .clientConfig(config)
                            .poolConfig(pool)
                            .maxAttempts(3)
                            .maxTotalRetriesDuration(connectTimeout.plus(socketTimeout))
                            .build();
                    return new RedisLockStore(cluster, true, storeName, target, fenceRetention);
                }
                if (sentinelMaster != null) {
                    target = "Redis Sentinel master '" + sentinelMaster + "' via " + describe(sentinels);
                    RedisSentinelClient sentinel = RedisSentinelClient.builder()
                            .masterName(sentinelMaster)
                            .sentinels(sentinels)
                            .clientConfig(config)
                            .sentinelClientConfig(clientConfig(false))
                            .poolConfig(pool)
                            .build();
                    return new RedisLockStore(sentinel, true, storeName, target, fenceRetention);
                }
            } catch (JedisException e) {
                throw new LockStoreUnavailableException(
                        "Redis store '" + storeName + "' cannot reach "
                                + (clusterNodes.isEmpty()
                                        ? "the sentinels " + describe(sentinels)
                                        : "the cluster " + describe(clusterNodes))
                                + ": " + e.getMessage(),
                        null,
                        storeName,
                        e);
            }
            if (url == null) {
                throw new IllegalStateException("A Redis store needs a URL, cluster nodes or sentinels");
            }
            HostAndPort server = JedisURIHelper.getHostAndPort(url);
            target = (JedisURIHelper.isRedisSSLScheme(url) ? "rediss://" : "redis://") + server;
            RedisClient standalone = RedisClient.builder()
                    .hostAndPort(server)
                    .clientConfig(config)
                    .poolConfig(pool)
                    .build();
            return new RedisLockStore(standalone, true, storeName, target, fenceRetention);
        }

        @SuppressWarnings("deprecation") // ssl(boolean): the plain switch that rediss:// means, default TLS settings
        private JedisClientConfig clientConfig(boolean fromUrl) {
            DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(Math.toIntExact(connectTimeout.toMillis()))
                    .socketTimeoutMillis(Math.toIntExact(socketTimeout.toMillis()))
                    .clientName("exclusive-" + storeName.replaceAll("[^A-Za-z0-9_.-]", "_"));
            if (fromUrl) {
                config.user(JedisURIHelper.getUser(url))
                        .password(JedisURIHelper.getPassword(url))
                        .ssl(JedisURIHelper.isRedisSSLScheme(url));
                if (clusterNodes.isEmpty()) {
                    config.database(JedisURIHelper.getDBIndex(url));
                }
            }
            return config.build();
        }

        private static String describe(Collection<HostAndPort> nodes) {
            return nodes.stream().map(HostAndPort::toString).collect(Collectors.joining(","));
        }

        private static Duration positive(Duration timeout, String what) {
            if (timeout == null
                    || timeout.compareTo(Duration.ofMillis(1)) < 0
                    || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
                throw new IllegalArgumentException(what + " must be between 1 ms and about 24 days, got " + timeout);
            }
            return timeout;
        }
    }
}

package dev.exclusive.redis;

import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.Secrets;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Settings of a {@link RedisLockStore} that opens and owns its connections, from {@link RedisLockStore#builder()}.
 * One of {@link #url}, {@link #clusterNodes} or {@link #sentinel} chooses the topology; the URL also carries
 * credentials, database and TLS for the others. {@link #user} and {@link #password} set credentials on their
 * own, and win over the URL's.
 *
 * <p>A password in a URL must be percent-encoded ({@code #} as {@code %23}, {@code @} as {@code %40}, {@code %}
 * as {@code %25}, {@code /} as {@code %2F}, {@code :} as {@code %3A}, {@code ?} as {@code %3F}); or leave it out
 * of the URL and pass it to {@link #password}. Messages show a URL as {@code redis://***@host:port}, never its
 * user info.
 *
 * <p>Not thread-safe; {@link #build()} may be called more than once, each time opening a new store.
 */
public final class RedisLockStoreBuilder {

    private URI url;
    private String user;
    private String password;
    private final Set<HostAndPort> clusterNodes = new LinkedHashSet<>();
    private String sentinelMaster;
    private final Set<HostAndPort> sentinels = new LinkedHashSet<>();
    private Duration connectTimeout = RedisLockStore.DEFAULT_CONNECT_TIMEOUT;
    private Duration socketTimeout = RedisLockStore.DEFAULT_SOCKET_TIMEOUT;
    private int poolSize = RedisLockStore.DEFAULT_POOL_SIZE;
    private String storeName = "redis";
    private Duration fenceRetention = RedisLockStore.DEFAULT_FENCE_RETENTION;
    private ThreadFactory threads;
    private int minReplicas;
    private Duration replicaTimeout = Duration.ofMillis(50);
    private boolean shardedReleases = true;
    private AuditLimits auditLimits = AuditLimits.DEFAULT;

    RedisLockStoreBuilder() {}

    /**
     * @param limits how many and how old records the audit trail keeps; default {@link AuditLimits#DEFAULT}
     * @return this builder
     */
    public RedisLockStoreBuilder auditLimits(AuditLimits limits) {
        auditLimits = java.util.Objects.requireNonNull(limits, "limits");
        return this;
    }

    /**
     * @param retention how long a name's fence counter is kept at least after its last lease ends (for a name in
     *                  use up to about twice as long, so that most acquisitions need not push its expiry out); at
     *                  least 1 ms; default {@link RedisLockStore#DEFAULT_FENCE_RETENTION one hour}. Each name used
     *                  within the last ttl + retention keeps one key of about 150 bytes. Fences keep increasing
     *                  after the counter expired as long as the Redis clock does not step back by more than the
     *                  ttl plus the retention (see {@link RedisLockStore}).
     * @return this builder
     */
    public RedisLockStoreBuilder fenceRetention(Duration retention) {
        if (retention == null || retention.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("fence retention must be at least 1 ms, got " + retention);
        }
        fenceRetention = retention;
        return this;
    }

    /**
     * @param url {@code redis://[user:password@]host[:port][/database]} or {@code rediss://} (TLS): the
     *            server of a standalone store; with {@link #clusterNodes} one more seed node, with
     *            {@link #sentinel} only credentials, database and TLS of the master (its host is not used).
     *            A password in it is percent-encoded; user info without a colon is the password alone, as
     *            {@code redis-cli} reads it.
     * @return this builder
     * @throws IllegalArgumentException if it is not a Redis URL; the message shows it without its user info
     */
    public RedisLockStoreBuilder url(URI url) {
        URI withPort = RedisKeys.withDefaultPort(url);
        if (!JedisURIHelper.isValid(withPort)) { // a host, a port, and redis:// or rediss://
            throw new IllegalArgumentException("Not a Redis URL: " + Secrets.describeUrl(url.toString())
                    + "; expected redis://[user:password@]host[:port][/database] or rediss://..., with a password"
                    + " percent-encoded (or passed to password(String) instead)");
        }
        this.url = withPort;
        return this;
    }

    /**
     * @param user the Redis ACL user of the data nodes (not the Sentinels); wins over the URL's; {@code null}
     *             for the URL's, or Redis's {@code default} user
     * @return this builder
     */
    public RedisLockStoreBuilder user(String user) {
        this.user = user;
        return this;
    }

    /**
     * @param password the password of the data nodes (not the Sentinels), as it is: no encoding; wins over the
     *                 URL's; {@code null} for the URL's. It never appears in messages, logs or {@code toString}.
     * @return this builder
     */
    public RedisLockStoreBuilder password(String password) {
        this.password = password;
        return this;
    }

    /**
     * Makes acquisitions and extensions wait until {@code replicas} replicas of the master have the write
     * ({@code WAIT}), so that a lock acquired before a failover is still held after it. When fewer confirm within
     * {@link #replicaTimeout}, the call fails with {@link LockStoreUnavailableException}, not busy (nobody else
     * holds the lock: the store cannot vouch for it); an acquisition is released again first. Replication stays
     * asynchronous underneath: see {@link RedisLockStore}'s javadoc for what remains.
     *
     * @param replicas how many replicas must confirm, at least 0 (the default: no waiting)
     * @return this builder
     */
    public RedisLockStoreBuilder minReplicas(int replicas) {
        if (replicas < 0) {
            throw new IllegalArgumentException("min-replicas must be 0 or more, got " + replicas);
        }
        minReplicas = replicas;
        return this;
    }

    /**
     * @param timeout how long an acquisition or extension waits for {@link #minReplicas} replicas; between 1 ms
     *                and about 24 days; default 50 ms
     * @return this builder
     */
    public RedisLockStoreBuilder replicaTimeout(Duration timeout) {
        replicaTimeout = positive(timeout, "replica timeout");
        return this;
    }

    /**
     * @param nodes seed nodes of a Redis Cluster; the client discovers the rest
     * @return this builder
     */
    public RedisLockStoreBuilder clusterNodes(Collection<HostAndPort> nodes) {
        clusterNodes.addAll(nodes);
        return this;
    }

    /**
     * @param master    the name Sentinel monitors the master under
     * @param sentinels the Sentinel nodes (without authentication)
     * @return this builder
     */
    public RedisLockStoreBuilder sentinel(String master, Collection<HostAndPort> sentinels) {
        this.sentinelMaster = Objects.requireNonNull(master, "master");
        this.sentinels.addAll(sentinels);
        return this;
    }

    /**
     * @param timeout time to open a connection; positive
     * @return this builder
     */
    public RedisLockStoreBuilder connectTimeout(Duration timeout) {
        connectTimeout = positive(timeout, "connect timeout");
        return this;
    }

    /**
     * @param timeout time to wait for a reply, and for a free pooled connection; positive
     * @return this builder
     */
    public RedisLockStoreBuilder socketTimeout(Duration timeout) {
        socketTimeout = positive(timeout, "socket timeout");
        return this;
    }

    /**
     * @param size pooled connections for commands (per node in Cluster); positive. The subscriber takes one
     *             more.
     * @return this builder
     */
    public RedisLockStoreBuilder poolSize(int size) {
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
    public RedisLockStoreBuilder storeName(String name) {
        storeName = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * @param threads where the store's one background thread (the release subscriber, named
     *                {@code exclusive-redis-subscriber-<store>}, daemon) comes from: inside a Jakarta EE server,
     *                the container's {@code ManagedThreadFactory}; {@code null} (the default) for plain daemon
     *                threads
     * @return this builder
     */
    public RedisLockStoreBuilder threadFactory(ThreadFactory threads) {
        this.threads = threads;
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
        RedisTopology topology = RedisTopology.open(new RedisTopology.Settings(
                url,
                user,
                password,
                new LinkedHashSet<>(clusterNodes),
                sentinelMaster,
                new LinkedHashSet<>(sentinels),
                connectTimeout,
                socketTimeout,
                poolSize,
                storeName));
        return new RedisLockStore(
                topology,
                storeName,
                fenceRetention,
                threads,
                new RedisLockStore.Replication(minReplicas, replicaTimeout),
                shardedReleases,
                auditLimits);
    }

    /**
     * Turns sharded release messages off, for tests of the fallback a Cluster older than Redis 7 takes (only 7 is
     * installed where the tests run).
     *
     * @param sharded {@code false} to publish releases to every node ({@code PUBLISH}) even on Redis 7+
     * @return this builder
     */
    RedisLockStoreBuilder shardedReleases(boolean sharded) {
        shardedReleases = sharded;
        return this;
    }

    /** Names no URL and no password. */
    @Override
    public String toString() {
        return "RedisLockStoreBuilder[" + storeName + "]";
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

package dev.exclusive.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.NamedThreads;
import dev.exclusive.spi.WaitPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

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
 * <li>release with a minimum hold: the same script, given the minimum. If the owner matches, read {@code TIME};
 * if the hash's acquisition time plus the minimum (the floor) has passed, delete and {@code PUBLISH} as release
 * does; if not, {@code PEXPIRE} the hash to end at the floor (plus the 2 ms of slack) unless its {@code PTTL}
 * already ends sooner, keep owner and fence, and publish nothing: waiters see it expire.</li>
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
 * expires 24 hours after the end of the last lease (see {@link RedisLockStoreBuilder#fenceRetention}), so a
 * million one-off names leave nothing behind a day later. After that, or when the counter is lost (a restart without
 * persistence, a failover that lost the last writes), fences still increase as long as the Redis server's clock
 * has moved forward past the last fence, since a fence is never below the Redis time in microseconds.
 *
 * <p>Durability. A lock is exactly as durable as Redis's data: a lock held when Redis restarts without
 * persistence (or fails over before the write reached a replica) is gone, and another caller may acquire it.
 * Use fences for work that must not run twice.
 *
 * <p>Waiting. A release publishes the name on {@value RedisKeys#RELEASED_CHANNEL}. Each store has one daemon
 * thread, {@code exclusive-redis-subscriber-<store>}, holding one subscribed connection, which signals the waiting
 * threads of this JVM through {@link LocalSignals}: no thread and no connection per waiter. The thread comes from
 * the store's thread factory ({@link RedisLockStoreBuilder#threadFactory}; the provider uses the one it is given),
 * starts with the first wait and ends with {@link #close()}. Messages can be lost (the subscription is
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
 * answers acquired with it; without a retry the lease expires at its ttl. The thread's interrupt flag does not cut
 * a call short (each is bounded by the timeouts anyway), so a release in a {@code finally} block after interrupted
 * work still reaches Redis; the flag is left set.
 *
 * <p>Credentials. A password in a URL must be percent-encoded ({@code #} as {@code %23}, {@code @} as
 * {@code %40}, {@code %} as {@code %25}, {@code /} as {@code %2F}, {@code :} as {@code %3A}); simpler, give it on
 * its own with {@link RedisLockStoreBuilder#password} (setting {@code password}), which wins over the URL's, as
 * {@link RedisLockStoreBuilder#user} does over its user. No password appears in a message, a log line, a cause
 * or {@link #toString()}: URLs are shown as {@code redis://***@host:port}, and Jedis messages that repeat a URL
 * or the password are masked before they are wrapped.
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

    private final RedisTopology topology;
    private final UnifiedJedis client;
    private final String storeName;
    private final String fenceRetention;
    private final RedisFailures failures;
    private final RedisLister lister;
    private final LocalSignals signals = new LocalSignals();
    private final ReleaseSubscriber subscriber;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param threads where the subscriber's thread comes from; {@code null} for plain daemon threads */
    RedisLockStore(RedisTopology topology, String storeName, Duration fenceRetention, ThreadFactory threads) {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.client = topology.client();
        this.storeName = Objects.requireNonNull(storeName, "storeName");
        this.fenceRetention = Long.toString(fenceRetention.toMillis());
        this.failures = new RedisFailures(storeName, topology);
        this.lister = new RedisLister(topology);
        this.subscriber = new ReleaseSubscriber(
                client,
                signals,
                storeName,
                NamedThreads.of(threads, "exclusive-redis-subscriber-" + storeName),
                topology.secrets());
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
        return using(client, storeName, null);
    }

    /**
     * Like {@link #using(UnifiedJedis, String)}, with the thread factory the subscriber's thread comes from.
     *
     * @param client    an open client
     * @param storeName the configured store's name
     * @param threads   where the store's one background thread comes from (inside a Jakarta EE server, the
     *                  container's {@code ManagedThreadFactory}); {@code null} for plain daemon threads
     * @return a new store that does not close {@code client}
     */
    public static RedisLockStore using(UnifiedJedis client, String storeName, ThreadFactory threads) {
        return new RedisLockStore(RedisTopology.of(client), storeName, DEFAULT_FENCE_RETENTION, threads);
    }

    /** @return a builder for standalone, Sentinel and Cluster stores with explicit timeouts */
    public static RedisLockStoreBuilder builder() {
        return new RedisLockStoreBuilder();
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        return RedisReplies.acquisition(call(
                name,
                "acquire",
                () -> RedisScript.ACQUIRE.run(
                        client,
                        List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name)),
                        List.of(owner, holder.encode(), millis(ttl), fenceRetention))));
    }

    @Override
    public boolean release(String name, String owner) {
        return release(name, owner, "0");
    }

    /** The release script with a floor: it frees the lock past it, or shortens the lease to it, in one step. */
    @Override
    public boolean release(String name, String owner, Duration minHold) {
        long millis = minHold.toMillis();
        return release(name, owner, Long.toString(minHold.minusMillis(millis).isZero() ? millis : millis + 1));
    }

    private boolean release(String name, String owner, String minHoldMillis) {
        return RedisReplies.yes(call(
                name,
                "release",
                () -> RedisScript.RELEASE.run(
                        client,
                        List.of(RedisKeys.lockKey(name)),
                        List.of(owner, RedisKeys.RELEASED_CHANNEL, name, minHoldMillis))));
    }

    @Override
    public boolean forceRelease(String name) {
        return RedisReplies.yes(call(
                name,
                "force-release",
                () -> RedisScript.FORCE_RELEASE.run(
                        client, List.of(RedisKeys.lockKey(name)), List.of(RedisKeys.RELEASED_CHANNEL, name))));
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return RedisReplies.yes(call(
                name,
                "extend",
                () -> RedisScript.EXTEND.run(
                        client,
                        List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name)),
                        List.of(owner, millis(ttl), fenceRetention))));
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return Optional.ofNullable(call(
                name,
                "inspect",
                () -> RedisReplies.entry(
                        name, RedisScript.INSPECT.run(client, List.of(RedisKeys.lockKey(name)), List.of()))));
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        return call(null, "list locks", () -> lister.list(prefix, limit));
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
                return withInterruptFlagAside(() -> client.exists(RedisKeys.lockKey(name)));
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
        if (topology.owned()) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + storeName + " on " + topology.target() + "]";
    }

    /** @return the subscriber, for tests that wait until it listens */
    ReleaseSubscriber subscriber() {
        return subscriber;
    }

    /** @return the client, for tests */
    UnifiedJedis client() {
        return client;
    }

    /** Runs a Redis call, turning every Jedis failure into {@link LockStoreUnavailableException}. */
    private <T> T call(String lockName, String action, Supplier<T> work) {
        if (closed.get()) {
            throw new IllegalStateException("Redis store '" + storeName + "' is closed");
        }
        try {
            return withInterruptFlagAside(work);
        } catch (JedisException e) {
            throw failures.unavailable(lockName, action, e);
        }
    }

    /**
     * Runs {@code work} with the thread's interrupt flag cleared, and sets it again afterwards, also when an
     * interrupt during the call surfaced as an exception. A call is bounded by the store's timeouts, and a thread
     * whose flag is set (work that was interrupted, releasing in a {@code finally} block) must still reach Redis:
     * the pool's wait for a free connection, and the Cluster client's pause between attempts, would otherwise end
     * at once on the flag, fail the call and clear the flag.
     */
    private static <T> T withInterruptFlagAside(Supplier<T> work) {
        boolean interrupted = Thread.interrupted();
        try {
            return work.get();
        } catch (JedisException e) {
            interrupted |= RedisFailures.interrupted(e);
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String millis(Duration duration) {
        return Long.toString(Math.max(1, duration.toMillis()));
    }
}

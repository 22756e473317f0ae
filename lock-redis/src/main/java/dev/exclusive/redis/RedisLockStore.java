package dev.exclusive.redis;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.NamedThreads;
import dev.exclusive.spi.WaitPolicy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Locks shared by every server connected to the same Redis: standalone, Sentinel or Cluster, on Jedis.
 *
 * <p>Keys. A lock named {@code n} has two keys: its lease {@code exclusive:lock:{n'}}, a string
 * {@code <owner>\n<waiters>\n<fence>\n<span>\n<holder>} that expires by Redis's own {@code PX} at the end of the
 * lease; and a counter {@code exclusive:fence:{n'}} holding the last fence granted. {@code n'} is {@code n} with
 * {@code %}, <code>}</code> and lone surrogates escaped, so it is the hash tag of both keys whatever the name
 * holds: both live in one Cluster slot, two names never share a key, and a prefix of names is a prefix of keys.
 * The owner is escaped ({@code %} and line feeds), so the first line feed ends it; {@code <waiters>} names the
 * store instance whose threads wait for the lease (or {@code *} for several); {@code <span>} is the lease's length
 * from its acquisition to its current expiry, so that {@code <span> - PTTL} is the time held, read without a
 * clock.
 *
 * <p>Algorithm. Every operation is one Lua script (resources {@code dev/exclusive/redis/*.lua}, run by
 * {@code EVALSHA}, sent again with {@code EVAL} on {@code NOSCRIPT}). Redis runs a script alone: no other
 * command, from any client, runs between its first and last step, so each check-then-act below is atomic.
 * <ol>
 * <li>acquire: {@code PTTL} of the lease. If it is live (above 0, or -1) and its owner is another, answer busy
 * with that {@code PTTL}, which waiters use to sleep until the lease ends. If its owner is the caller (a retry of
 * an attempt whose reply was lost: Jedis's Cluster client sends a script again after a read timeout), renew it to
 * the ttl as extend does and answer acquired with that hold's fence. Else read {@code TIME}: the fence is the
 * Redis time in µs, set into the counter with {@code PX} ttl + retention by a {@code SET ... GET} that answers the
 * last fence (if that is not below the time, the fence is one above it, set again), and {@code SET} the lease with
 * {@code PX} ttl plus 2 ms (Redis counts whole milliseconds, so without the slack the key could vanish before the
 * holder's own estimate of its lease ends). Four commands, one write to each key; the answer's acquisition and
 * expiry times are the store's estimate of the Redis clock at the reply (one {@code TIME} reading at most 10 s old,
 * advanced by {@link System#nanoTime()}; off by about a round trip).</li>
 * <li>release: {@code GET} the lease; if its owner is the caller, {@code DEL} it and, only if a waiter of another
 * store instance recorded itself on it, {@code PUBLISH} its key; else answer {@code false}. A lease whose
 * {@code PX} passed reads as absent, so a late release never frees the next holder. The waiters of this store
 * are signalled directly. On a client that may send a call again (Cluster), each call also names a receipt key
 * of its own ({@code exclusive:receipt:{n'}<call>}, in the lease's slot): a run that frees the lock writes its
 * answer there, kept for the client's resend window, and a run that finds nothing of the caller's to free answers
 * what that receipt says, if it exists (see "Lost replies" below).</li>
 * <li>release with a minimum hold: another script, given the minimum. If the owner matches and the time held
 * ({@code <span> - PTTL}) has reached the minimum, release as above; if not, set the lease to end when it
 * does (plus the 2 ms of slack) unless its {@code PTTL} already ends sooner, keep owner and fence, and publish
 * nothing: waiters see it expire.</li>
 * <li>extend: if the owner matches, {@code SET} the lease again with the new {@code PX} and its span grown by
 * what the renewal adds, and push the counter's retention out beyond it.</li>
 * <li>force-release: delete the lease if it exists (for {@link #releaseHold}, only if its owner and fence are the
 * listed hold's); publish as release does; a receipt as release has.</li>
 * <li>wait (before a waiter parks): if the lease is live, record this store instance in its {@code <waiters>}
 * ({@code SET ... KEEPTTL}) and answer busy; else answer free, and the waiter tries again at once.</li>
 * <li>inspect: {@code PTTL}, the lease and {@code TIME}, read at one instant.</li>
 * </ol>
 * Expiry is decided by the Redis server alone ({@code PX}); no client clock decides anything. A script may call
 * {@code TIME} before it writes: scripts replicate by their effects (the default since Redis 5.0), so replicas
 * and the AOF receive the values written, not the script. Requires Redis 6.0 or later ({@code SET ... KEEPTTL});
 * sharded release messages need 7.0 ({@code SPUBLISH}); tested on 7.0, and on 6.2 standalone and Cluster.
 *
 * <p>Previous layout. Versions before this one kept the lease as a hash (owner, holder, acquired, fence). These
 * scripts read such a hash: it is busy for other owners, and its own owner (a restored handle) can renew,
 * extend, release or inspect it; the counter is the same. The previous version's scripts fail on this one's
 * leases ({@code WRONGTYPE}, reported as {@link LockStoreUnavailableException}): during a rolling upgrade an old
 * instance cannot take a lock a new one holds, and its waiters wake by re-checking, not by message.
 *
 * <p>Fences. A fence is greater than every fence granted for the name before, across releases, expiries,
 * stores, restarts and failovers: it is the Redis clock in microseconds, or one above the name's last fence (its
 * counter) where the clock is not past it. The clock alone covers a counter that expired, was lost (a restart
 * without persistence), or went back to an older value (a replica promoted after missing the last grants, a
 * restart from a snapshot or from an AOF that lost its last second, whose counter an {@code INCR} would count up
 * from a fence it already granted), as long as the Redis clock is not set back by more than the time since the
 * last grant (a clock stepped back, a failover to a host whose clock is behind); the counter covers a clock set
 * back while it is kept. It is kept the ttl plus the retention after the acquisition that last set it (or longer,
 * after an extension): one hour unless {@link RedisLockStoreBuilder#fenceRetention} (setting {@code retention})
 * says otherwise. The retention thus trades memory (one counter of about 150 bytes per name used within the last
 * ttl + retention) against the clock step back it tolerates.
 *
 * <p>Durability. A lock is exactly as durable as Redis's data: a lock held when Redis restarts without
 * persistence (or fails over before the write reached a replica) is gone, and another caller may acquire it.
 * With {@link RedisLockStoreBuilder#minReplicas} (setting {@code min-replicas}), acquire and extend run their
 * script and then {@code WAIT} for that many replicas on the same connection (a {@code WAIT} counts its own
 * connection's writes), at most {@code replica-timeout}; too few in time and the call fails with
 * {@link LockStoreUnavailableException} (an acquisition is first released again, so the name is not left taken
 * by nobody). Unavailable, not busy: nobody else holds the lock; the store cannot vouch for it. Replication stays
 * asynchronous: {@code WAIT} makes a lost lock unlikely, not impossible (a failover may still promote a replica
 * that was not among those that confirmed, and a release or an expiry is not waited for). Use fences for work
 * that must not run twice.
 *
 * <p>Waiting. A waiter of this store is woken directly by a release through this store. For the others, a
 * release publishes the lease key on {@value RedisKeys#RELEASED_CHANNEL} when a waiter of another store instance
 * recorded itself on the lease. Each store has one daemon thread, {@code exclusive-redis-subscriber-<store>},
 * holding one subscribed connection, which signals the waiting threads of this JVM through {@link LocalSignals}:
 * no thread and no connection per waiter. The thread comes from the store's thread factory
 * ({@link RedisLockStoreBuilder#threadFactory}; the provider uses the one it is given), starts with the first wait
 * and ends with {@link #close()}. Messages can be lost (the subscription is re-established after Redis restarts,
 * and anything published meanwhile is missed), so waiters also re-check with a backoff of 100 ms to 1 s, never
 * beyond the holder's expiry. A subscribed link that falls silent without closing (half-open TCP) is found by a
 * ping watchdog that the waiters' checks drive: pinged after 1 s of silence, dropped when the ping goes unanswered
 * for 2 s, and subscribed again on a new connection; with nobody waiting, nothing is sent.
 * On a Cluster of Redis 7 or later (asked once, by {@code COMMAND INFO SPUBLISH SSUBSCRIBE}: a node without them,
 * whatever its version, keeps {@code PUBLISH}), a release is {@code SPUBLISH}ed instead on
 * the lock's own channel ({@code exclusive:released:{n'}}, in the lock's slot), so only the shard that owns the
 * lock hears it, and the {@link ShardedReleaseSubscriber} subscribes the channels waited for, one connection per
 * shard; an older Cluster, standalone and Sentinel keep {@code PUBLISH}.
 *
 * <p>Listing. {@code SCAN MATCH} with the escaped prefix (glob characters {@code * ? [ ] \} escaped), on every
 * master in Cluster; each key found is read with the inspect script, which leaves out expired locks.
 *
 * <p>Failures. Every Jedis failure (connection refused, timeouts, a Redis gone mid-call, Cluster errors, an
 * exhausted pool) becomes {@link LockStoreUnavailableException}: within the connect timeout plus the socket
 * timeout (default 2 s each), plus at most one socket timeout waiting for a pooled connection, however many
 * threads share the pool (tested with 200 threads on 16 connections); an acquisition that also reads the Redis
 * clock (once every 10 s) may take that twice, and a failure of that reading never fails an acquisition Redis
 * granted. Idle pooled
 * connections are dropped after a connection failure, so the same store works again once Redis is back.
 * The thread's interrupt flag does not cut
 * a call short (each is bounded by the timeouts anyway), so a release in a {@code finally} block after interrupted
 * work still reaches Redis; the flag is left set.
 *
 * <p>Lost replies. Standalone and Sentinel clients send a command once: a reply lost (a read timeout, a
 * connection cut after the command left) is a {@link LockStoreUnavailableException}, whose outcome is unknown,
 * as the API allows. The Cluster client sends the same command again after such a failure (up to 3 attempts
 * within the connect plus the socket timeout), on a new connection, and may reach Redis twice with it. Each
 * script therefore answers a second run of the same call as the first run would have been answered:
 * <ul>
 * <li>acquire: the second run finds the caller's own hold, renews it and answers acquired with its fence. A
 * successful acquire is never reported busy while the key holds the caller's lease.</li>
 * <li>extend: renewing one's own lease twice to the same ttl is renewing it; the second run answers extended.</li>
 * <li>release, release with a minimum hold, force-release: the first run deleted the lease, so the second finds the
 * lock free, held by the next owner, or held again by the same owner (a handle restored from the token); it answers
 * from the call's receipt instead ({@code 1}, or the outcome of the minimum-hold release; every run records one,
 * also a run that freed nothing), read before the lease, and leaves the lock as it is: freeing it again would free
 * the next hold. Without receipts a release that
 * succeeded would be reported refused, telling the application its hold had ended early. A receipt is one key per
 * call, unique to it (not per owner or name: another owner may take and free the lock between the two runs, and a
 * later call of the same owner must not be answered by an earlier one's receipt). It is kept for twice the connect
 * plus the socket timeout (the last attempt may start just before the client's retry budget ends), or for
 * {@link RedisTopology#APPLICATION_RESEND_WINDOW} on an application's own client that may resend; standalone and
 * Sentinel calls write none.</li>
 * </ul>
 * Why receipts rather than a Cluster client that never resends: the same retries follow {@code MOVED} and
 * {@code ASK} and refresh the slot map after a failover, which the store needs; turning them off for the writes
 * would make every lost reply an unknown outcome, and a failover an outage until another call refreshed the map.
 * A receipt costs a {@code GET} and a {@code SET PX} per release on Cluster. A call whose every attempt fails still
 * answers {@link LockStoreUnavailableException}: an acquisition may then hold the lock until its ttl, a release may
 * have freed it. With {@code min-replicas}, acquire and extend run on one connection of their own (for the
 * {@code WAIT}) and are never resent.
 *
 * <p>Credentials. A password in a URL must be percent-encoded ({@code #} as {@code %23}, {@code @} as
 * {@code %40}, {@code %} as {@code %25}, {@code /} as {@code %2F}, {@code :} as {@code %3A}); simpler, give it on
 * its own with {@link RedisLockStoreBuilder#password} (setting {@code password}), which wins over the URL's, as
 * {@link RedisLockStoreBuilder#user} does over its user. No password appears in a message, a log line, a cause
 * or {@link #toString()}: URLs are shown as {@code redis://***@host:port}, and Jedis messages that repeat a URL
 * or the password are masked before they are wrapped.
 *
 * <p>Audit trail. One list, {@value RedisKeys#AUDIT}, newest first: a script ({@code audit.lua}) stamps each
 * record with the Redis clock, pushes it, cuts the list to the store's {@link AuditLimits#maxRecords()} and pops
 * records older than {@link AuditLimits#maxAge()}; reading ({@code audit-trail.lua}) also leaves out records past
 * the age by the Redis clock. Every instance on the same Redis reads the same trail, and Redis keeps it across
 * restarts of the servers as it keeps the locks.
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

    /**
     * How long a name's fence counter is kept after its last lease ends, unless the builder says otherwise: an
     * hour, well above the largest step ntpd makes on a running host (1,000 s, its panic threshold).
     */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofHours(1);

    private static final WaitPolicy WAIT_POLICY = WaitPolicy.backoff(Duration.ofMillis(100), Duration.ofSeconds(1));

    private final RedisTopology topology;
    private final UnifiedJedis client;
    private final String storeName;
    private final long fenceRetention;
    /** This store instance on a lease's waiters: random, so that two stores of one JVM are two instances. */
    private final String instance = RedisKeys.instanceId();

    private final RedisClock clock = new RedisClock();
    private final RedisFailures failures;
    private final RedisLister lister;
    private final LocalSignals signals = new LocalSignals();
    private final ReleaseSubscriber subscriber;
    /** On a Cluster client of the store's own: the sharded subscriber, used once the nodes prove to run 7+. */
    private final ShardedReleaseSubscriber shards;
    /** Whether releases go by sharded pub/sub; {@code null} until the first release or wait asks the server. */
    private volatile Boolean sharded;

    private final AtomicBoolean closed = new AtomicBoolean();
    /** How long a release's receipt is kept: the client's resend window; 0 for a client that never resends. */
    private final long receiptMillis;
    /** Numbers this store's release calls, for their receipts. */
    private final AtomicLong releaseCalls = new AtomicLong();

    private final Replication replication;
    private final AuditLimits auditLimits;

    /**
     * What {@code min-replicas} and {@code replica-timeout} ask: after an acquisition or extension, {@code WAIT}
     * until {@code replicas} replicas have the write, at most {@code timeout}.
     */
    record Replication(int replicas, Duration timeout) {
        static final Replication NONE = new Replication(0, Duration.ofMillis(50));
    }

    /**
     * @param threads     where the subscriber's thread comes from; {@code null} for plain daemon threads
     * @param replication how many replicas must confirm an acquisition or extension; {@link Replication#NONE} for
     *                    none
     */
    RedisLockStore(
            RedisTopology topology,
            String storeName,
            Duration fenceRetention,
            ThreadFactory threads,
            Replication replication,
            boolean shardedReleases,
            AuditLimits auditLimits) {
        this.auditLimits = Objects.requireNonNull(auditLimits, "auditLimits");
        this.topology = Objects.requireNonNull(topology, "topology");
        this.replication = Objects.requireNonNull(replication, "replication");
        this.client = topology.client();
        this.storeName = Objects.requireNonNull(storeName, "storeName");
        this.fenceRetention = fenceRetention.toMillis();
        this.receiptMillis = topology.resendWindow().toMillis();
        this.failures = new RedisFailures(storeName, topology);
        this.lister = new RedisLister(topology);
        this.subscriber = new ReleaseSubscriber(
                topology, signals, storeName, NamedThreads.of(threads, "exclusive-redis-subscriber-" + storeName));
        this.shards = shardedReleases && client instanceof RedisClusterClient cluster
                ? new ShardedReleaseSubscriber(
                        cluster,
                        signals,
                        storeName,
                        NamedThreads.of(threads, "exclusive-redis-shard-subscriber-" + storeName),
                        topology.secrets())
                : null;
        this.sharded = shards == null ? Boolean.FALSE : null;
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
        return new RedisLockStore(
                RedisTopology.of(client),
                storeName,
                DEFAULT_FENCE_RETENTION,
                threads,
                Replication.NONE,
                true,
                AuditLimits.DEFAULT);
    }

    /** @return a builder for standalone, Sentinel and Cluster stores with explicit timeouts */
    public static RedisLockStoreBuilder builder() {
        return new RedisLockStoreBuilder();
    }

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        List<String> keys = List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name));
        List<String> args = List.of(RedisKeys.ownerField(owner), holder.encode(), leaseMillis(ttl), retainMillis(ttl));
        if (replication.replicas() > 0) {
            return call(
                    name,
                    "acquire",
                    () -> replicated(name, connection -> {
                        Object reply = RedisScript.ACQUIRE.run(connection, keys, args);
                        long arrived = System.nanoTime();
                        if (reply instanceof List<?> busy && busy.size() == 1) {
                            return RedisReplies.acquisition(reply, 0, ttl);
                        }
                        awaitReplicas(
                                connection,
                                name,
                                "acquired",
                                () -> RedisScript.RELEASE.run(
                                        connection,
                                        List.of(keys.get(0)),
                                        releaseArgs(name, RedisKeys.ownerField(owner), instance)));
                        return RedisReplies.acquisition(reply, clock.millisAt(arrived, () -> redisTime(name)), ttl);
                    }));
        }
        return call(name, "acquire", () -> {
            Object reply = RedisScript.ACQUIRE.run(client, keys, args);
            long arrived = System.nanoTime();
            if (reply instanceof List<?> busy && busy.size() == 1) {
                return RedisReplies.acquisition(reply, 0, ttl);
            }
            return RedisReplies.acquisition(reply, clock.millisAt(arrived, () -> redisTime(name)), ttl);
        });
    }

    @Override
    public boolean release(String name, String owner) {
        boolean released = RedisReplies.yes(call(
                name,
                "release",
                () -> RedisScript.RELEASE.run(
                        client, releaseKeys(name), releaseArgs(name, RedisKeys.ownerField(owner), instance))));
        if (released) {
            signals.signal(name); // this JVM's waiters; the script published only for other instances'
        }
        return released;
    }

    /** The release script with a floor: it frees the lock past it, or shortens the lease to it, in one step. */
    @Override
    public boolean release(String name, String owner, Duration minHold) {
        long millis = minHold.toMillis();
        long floor = minHold.minusMillis(millis).isZero() ? millis : millis + 1;
        if (floor <= 0) {
            return release(name, owner);
        }
        long outcome = RedisReplies.number(call(
                name,
                "release",
                () -> RedisScript.RELEASE_AFTER.run(
                        client,
                        releaseKeys(name),
                        releaseArgs(name, RedisKeys.ownerField(owner), instance, Long.toString(floor)))));
        if (outcome == 2) {
            signals.signal(name);
        }
        return outcome > 0;
    }

    @Override
    public boolean forceRelease(String name) {
        return forceRelease(name, releaseArgs(name, instance));
    }

    /** {@code force-release.lua} told which hold to free: the owner's, with that fence, and no later one. */
    @Override
    public boolean releaseHold(String name, String owner, long fence) {
        List<String> args = releaseArgs(name, instance);
        if (receiptMillis == 0) {
            args.add("0"); // the receipt window's place, unread without a receipt key
        }
        args.add(RedisKeys.ownerField(owner));
        args.add(Long.toString(fence));
        return forceRelease(name, args);
    }

    private boolean forceRelease(String name, List<String> args) {
        boolean released = RedisReplies.yes(
                call(name, "force-release", () -> RedisScript.FORCE_RELEASE.run(client, releaseKeys(name), args)));
        if (released) {
            signals.signal(name);
        }
        return released;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        List<String> keys = List.of(RedisKeys.lockKey(name), RedisKeys.fenceKey(name));
        List<String> args = List.of(RedisKeys.ownerField(owner), leaseMillis(ttl), retainMillis(ttl));
        if (replication.replicas() > 0) {
            return call(
                    name,
                    "extend",
                    () -> replicated(name, connection -> {
                        boolean extended = RedisReplies.yes(RedisScript.EXTEND.run(connection, keys, args));
                        if (extended) {
                            awaitReplicas(connection, name, "extended", null);
                        }
                        return extended;
                    }));
        }
        return RedisReplies.yes(call(name, "extend", () -> RedisScript.EXTEND.run(client, keys, args)));
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

    @Override
    public void audit(AuditRecord record) {
        List<String> args = List.of(
                record.encode(),
                Integer.toString(auditLimits.maxRecords()),
                Long.toString(auditLimits.maxAge().toMillis()));
        call(
                record.lockName(),
                "append to the audit trail",
                () -> RedisScript.AUDIT.run(client, List.of(RedisKeys.AUDIT), args));
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        Object reply = call(
                null,
                "read the audit trail",
                () -> RedisScript.AUDIT_TRAIL.run(client, List.of(RedisKeys.AUDIT), List.of(Integer.toString(limit))));
        List<?> items = (List<?>) reply;
        long oldest = ((Number) items.get(0)).longValue() - auditLimits.maxAge().toMillis();
        List<AuditRecord> records = new ArrayList<>(items.size() - 1);
        for (Object item : items.subList(1, items.size())) {
            String stamped = String.valueOf(item);
            int bar = stamped.indexOf('|');
            long at;
            try {
                at = Long.parseLong(stamped.substring(0, Math.max(bar, 0)));
            } catch (NumberFormatException e) {
                continue; // not written by audit.lua: skipped, as a damaged record is
            }
            if (at >= oldest) {
                AuditRecord.decode(stamped.substring(bar + 1))
                        .map(record -> record.at(Instant.ofEpochMilli(at)))
                        .ifPresent(records::add);
            }
        }
        return records;
    }

    /** Waiters re-check at most every second: release messages can be lost while the subscriber reconnects. */
    @Override
    public WaitPolicy waitPolicy() {
        return WAIT_POLICY;
    }

    /**
     * Registers the waiter in this JVM, then records this store instance on the lease ({@code wait.lua}), so that
     * a release by another instance publishes; a release by this one signals its waiters directly.
     */
    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        boolean shardedReleases;
        try {
            shardedReleases = withInterruptFlagAside(this::sharded);
        } catch (JedisException e) {
            return; // let the caller try again at once: its next call reports the outage
        }
        if (!shardedReleases) {
            subscriber.start();
            subscriber.watch();
            signals.await(name, maxWait, () -> recordWaiter(name));
            return;
        }
        try (ShardedReleaseSubscriber.Registration waiting = shards.waitFor(name)) {
            shards.watch();
            signals.await(name, maxWait, () -> recordWaiter(name));
        }
    }

    /** Runs {@code wait.lua}: @return whether the lock is still held (a failure answers no: try again at once) */
    private boolean recordWaiter(String name) {
        try {
            return withInterruptFlagAside(() -> RedisReplies.yes(
                    RedisScript.WAIT.run(client, List.of(RedisKeys.lockKey(name)), List.of(instance))));
        } catch (JedisException e) {
            return false; // let the caller try again at once: its next call reports the outage
        }
    }

    /**
     * Whether releases go by sharded pub/sub ({@code SPUBLISH} to the key's shard): on a Cluster client of the
     * store's own whose nodes have {@code SPUBLISH} and {@code SSUBSCRIBE} (Redis 7 or later, unless renamed away),
     * asked once ({@code COMMAND INFO} of one node, see {@link RedisTopology#shardedPubSub}); older clusters,
     * standalone and Sentinel use {@code PUBLISH}. By capability, not version: a release script that called a
     * missing {@code SPUBLISH} would fail after its {@code DEL}.
     *
     * @throws JedisException if the version cannot be read now; the next call asks again
     */
    private boolean sharded() {
        Boolean decided = sharded;
        if (decided == null) {
            decided = topology.shardedPubSub();
            sharded = decided;
        }
        return decided;
    }

    /**
     * @return the keys of a release script: the lease and, on a client that may send a call again (Cluster), the
     *         receipt of this call, which makes the call's answer survive a resend (see {@code release.lua})
     */
    private List<String> releaseKeys(String name) {
        String lease = RedisKeys.lockKey(name);
        if (receiptMillis == 0) {
            return List.of(lease);
        }
        return List.of(lease, RedisKeys.receiptKey(name, instance + "." + releaseCalls.incrementAndGet()));
    }

    /**
     * @return {@code head} followed by the command and channel that the release scripts tell waiters on, and how
     *         long a receipt is kept (read only with a receipt key, see {@link #releaseKeys})
     */
    private List<String> releaseArgs(String name, String... head) {
        List<String> args = new java.util.ArrayList<>(List.of(head));
        if (sharded()) {
            args.add("SPUBLISH");
            args.add(RedisKeys.releasedChannel(name));
        } else {
            args.add("PUBLISH");
            args.add(RedisKeys.RELEASED_CHANNEL);
        }
        if (receiptMillis > 0) {
            args.add(Long.toString(receiptMillis));
        }
        return args;
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
        if (shards != null) {
            shards.close();
        }
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

    /** @return the sharded subscriber on a Cluster client of the store's own, else {@code null}; for tests */
    ShardedReleaseSubscriber shards() {
        return shards;
    }

    /** @return whether releases go by sharded pub/sub, asking the server if not known yet; for tests */
    boolean shardedReleases() {
        return sharded();
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

    /** Runs {@code work} on one connection to the master of {@code name}'s keys, so that {@code WAIT} covers it. */
    private <T> T replicated(String name, Function<Jedis, T> work) {
        try (Connection connection = topology.connectionFor(RedisKeys.lockKey(name))) {
            return work.apply(new Jedis(connection));
        }
    }

    /**
     * {@code WAIT}s for the replicas {@code min-replicas} asks; when too few confirm in time, undoes what it can
     * and fails: the write may be lost by a failover, so the caller must not rely on it.
     *
     * @param undo what takes the write back (an acquisition is released again), or {@code null}
     * @throws LockStoreUnavailableException if fewer replicas confirmed the write within {@code replica-timeout}
     */
    private void awaitReplicas(Jedis connection, String name, String done, Supplier<Object> undo) {
        // WAIT answers after replica-timeout at the latest: the read must outlast it, or a replica-timeout above the
        // socket timeout turns every slow replica into a read timeout that skips the undo below
        Connection link = connection.getConnection();
        int soTimeout = link.getSoTimeout();
        long confirmed;
        link.setSoTimeout((int)
                Math.min(Integer.MAX_VALUE, soTimeout + replication.timeout().toMillis()));
        try {
            confirmed = connection.waitReplicas(
                    replication.replicas(), replication.timeout().toMillis());
        } finally {
            try {
                link.setSoTimeout(soTimeout);
            } catch (JedisException e) {
                // a broken link is destroyed, not pooled again
            }
        }
        if (confirmed >= replication.replicas()) {
            return;
        }
        String undone = "";
        if (undo != null) {
            try {
                if (RedisReplies.yes(undo.get())) {
                    undone = "; it was released again";
                    signals.signal(name); // this store's own waiters, which release.lua does not publish for
                } else {
                    undone = "; its lease had ended meanwhile";
                }
            } catch (JedisException e) {
                undone = "; releasing it again failed too, so it ends at its ttl";
            }
        }
        throw new LockStoreUnavailableException(
                "Redis store '" + storeName + "' " + done + " lock '" + name + "' on " + topology.target()
                        + ", but only " + confirmed + " of the " + replication.replicas()
                        + " replicas that min-replicas asks for confirmed it within replica-timeout "
                        + replication.timeout().toMillis() + " ms" + undone
                        + "; check the replicas (INFO replication) or raise replica-timeout",
                name,
                storeName,
                null);
    }

    /** @return the lease a ttl asks for, in milliseconds, with acquire.lua's 2 ms of slack */
    private static String leaseMillis(Duration ttl) {
        return Long.toString(Math.max(1, ttl.toMillis()) + 2);
    }

    /** @return how long the fence counter must be kept at least, from now: the ttl plus the retention */
    private String retainMillis(Duration ttl) {
        return Long.toString(Math.max(1, ttl.toMillis()) + fenceRetention);
    }

    /** @return a {@code TIME} reply from the node that holds {@code name}'s keys */
    private Object redisTime(String name) {
        return client.sendCommand(RedisKeys.lockKey(name), Protocol.Command.TIME);
    }
}

package dev.exclusive.redis;

import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The release subscriber of a store on Redis Cluster 7 or later, where a release is {@code SPUBLISH}ed on the
 * lock's own channel ({@link RedisKeys#releasedChannel}, in the lock's slot), so that only the shard owning the
 * lock hears it, not every node. This class {@code SSUBSCRIBE}s the channels of the locks that threads of this JVM
 * wait for, on one connection (and one daemon thread) per master that owns such a channel: however many locks are
 * waited for, at most one connection per shard.
 *
 * <p>Channels. A waiting thread registers with {@link #waitFor} before its {@code wait.lua} records it on the
 * lease. On a shard already subscribed, the {@code SSUBSCRIBE} is then on its way before any release can publish
 * for it; the first channels of a shard are subscribed by the shard's new thread, which may reach Redis after the
 * release, so the first confirmation of such a channel wakes its waiter to check the lock again. A channel nobody waits on
 * any more stays subscribed for {@value #IDLE_MILLIS} ms (a loop of attempts and waits re-uses it), then the next
 * wait that comes by unsubscribes it; a shard's thread ends, and its connection goes back to the pool, when its
 * last channel is gone.
 *
 * <p>Failover and slot moves. When a shard's connection breaks (its master died, the cluster failed over), its
 * thread ends and every thread waiting on its channels is woken: each checks the lock again and, still busy,
 * waits again, which routes its channel anew to the master the client now knows for the slot (the client renews
 * its slot map on the failures its own commands meet). A master that gives a slot away tells its subscribers with
 * {@code SUNSUBSCRIBE}; that channel's waiters are woken the same way. Meanwhile, as for every lost message,
 * waiters re-check at the store's backoff.
 *
 * <p>Watchdog. As {@link ReleaseSubscriber} does, the waiters' checks drive a watchdog ({@link #watch()}): a
 * shard connection silent for {@value ReleaseSubscriber#PROBE_AFTER_MILLIS} ms is probed by subscribing one of its
 * channels again (Redis confirms it, and sharded pub/sub has no {@code PING} in Jedis), and dropped when the probe
 * goes unanswered for {@value ReleaseSubscriber#SILENCE_LIMIT_MILLIS} ms.
 *
 * <p>Mixed versions. An instance of an earlier version of this store publishes every release on
 * {@value RedisKeys#RELEASED_CHANNEL} and listens there; between it and this one, waiters learn of releases by
 * their re-checks (at most a second apart), until every instance runs this version.
 */
final class ShardedReleaseSubscriber {

    private static final Logger LOG = System.getLogger(ShardedReleaseSubscriber.class.getName());
    /** How long a channel that nobody waits on stays subscribed. */
    static final long IDLE_MILLIS = 5_000;

    private final RedisClusterClient cluster;
    private final LocalSignals signals;
    private final String storeName;
    private final ThreadFactory threads;
    private final Secrets secrets;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition confirmed = lock.newCondition();
    /** The channels waited for now or lately, by channel name. */
    private final Map<String, Channel> channels = new HashMap<>();
    /** The shards with a subscribed connection, by the master they are connected to. */
    private final Map<HostAndPort, Shard> shards = new HashMap<>();

    private boolean closed;
    private boolean refusalLogged;
    private long sweptNanos = System.nanoTime();

    /** One waited-for channel; guarded by {@link #lock}. */
    private static final class Channel {
        final String name;
        int waiters;
        long idleSinceNanos;
        /** The shard it is subscribed (or being subscribed) on; {@code null} while it needs routing. */
        Shard shard;

        boolean confirmed;

        Channel(String name) {
            this.name = name;
        }
    }

    /** A waiting thread's registration, ended when it stops waiting. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * @param threads where the shards' threads come from; they name them and make them daemons
     */
    ShardedReleaseSubscriber(
            RedisClusterClient cluster,
            LocalSignals signals,
            String storeName,
            ThreadFactory threads,
            Secrets secrets) {
        this.cluster = cluster;
        this.signals = signals;
        this.storeName = storeName;
        this.threads = threads;
        this.secrets = secrets;
    }

    /**
     * Registers a thread that waits for {@code name}: subscribes the lock's channel on its shard unless it is
     * already. A shard that cannot be reached now leaves the thread to poll; its next wait tries again.
     *
     * @return what ends the registration, when the thread stops waiting
     */
    Registration waitFor(String name) {
        String channelName = RedisKeys.releasedChannel(name);
        Channel channel;
        boolean unrouted;
        lock.lock();
        try {
            if (closed) {
                return () -> {};
            }
            long now = System.nanoTime();
            if (now - sweptNanos > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS)) {
                sweep(now);
            }
            channel = channels.computeIfAbsent(channelName, c -> new Channel(name));
            channel.waiters++;
            unrouted = channel.shard == null;
        } finally {
            lock.unlock();
        }
        if (unrouted) {
            route(channelName, channel);
        }
        Channel registered = channel;
        return () -> {
            lock.lock();
            try {
                if (--registered.waiters == 0) {
                    registered.idleSinceNanos = System.nanoTime();
                }
            } finally {
                lock.unlock();
            }
        };
    }

    /**
     * The watchdog's step, run by waiting threads: probes a shard connection that has been silent, drops one whose
     * probe went unanswered.
     */
    void watch() {
        long now = System.nanoTime();
        lock.lock();
        try {
            for (Shard shard : shards.values()) {
                shard.watch(now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the channel of {@code name} is confirmed by its shard, for tests.
     *
     * @return {@code true} if confirmed before the timeout
     */
    boolean awaitSubscribed(String name, long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            Channel channel = channels.get(RedisKeys.releasedChannel(name));
            while ((channel == null || !channel.confirmed) && nanos > 0) {
                nanos = confirmed.awaitNanos(nanos);
                channel = channels.get(RedisKeys.releasedChannel(name));
            }
            return channel != null && channel.confirmed;
        } finally {
            lock.unlock();
        }
    }

    /** @return how many shard connections are subscribed now, for tests */
    int connections() {
        lock.lock();
        try {
            return shards.size();
        } finally {
            lock.unlock();
        }
    }

    /** Unsubscribes every shard and ends their threads; the connections go back to the client. */
    void close() {
        List<Shard> open;
        lock.lock();
        try {
            closed = true;
            open = new ArrayList<>(shards.values());
            for (Shard shard : open) {
                shard.unsubscribeAll();
            }
        } finally {
            lock.unlock();
        }
        for (Shard shard : open) {
            shard.stop();
        }
    }

    /** Subscribes {@code channel} on the master that owns its slot, starting that shard if it has none yet. */
    private void route(String channelName, Channel channel) {
        Connection connection;
        try {
            connection = cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(channelName));
        } catch (JedisException e) {
            LOG.log(
                    Level.DEBUG,
                    "Store ''{0}'': no connection for the release channel of ''{1}'' now ({2}); its waiters poll",
                    storeName,
                    channel.name,
                    secrets.mask(e.toString()));
            return;
        }
        HostAndPort node = connection.getHostAndPort();
        Connection unused = connection;
        lock.lock();
        try {
            if (!closed && channel.shard == null && channels.get(channelName) == channel) {
                Shard shard = shards.get(node);
                if (shard == null) {
                    shard = new Shard(node, connection);
                    Thread thread = newThread(shard);
                    if (thread != null) {
                        unused = null;
                        shards.put(node, shard);
                        shard.thread = thread;
                        thread.start();
                    }
                }
                if (unused != connection) {
                    channel.shard = shard;
                    shard.subscribe(channelName);
                }
            }
        } finally {
            lock.unlock();
        }
        if (unused != null) {
            giveBack(unused);
        }
    }

    /**
     * Returns a connection to its pool. A broken one is destroyed, and the pool may then fail to open a
     * replacement for a master that is gone; that must not end the subscriber's bookkeeping.
     */
    static void giveBack(Connection connection) {
        try {
            connection.close();
        } catch (JedisException e) {
            // the connection is closed; the pool's replacement is its own business
        }
    }

    private Thread newThread(Shard shard) {
        try {
            return threads.newThread(shard::run);
        } catch (RuntimeException e) {
            if (!refusalLogged) {
                refusalLogged = true;
                LOG.log(
                        Level.WARNING,
                        "Store ''{0}'': no thread for a release subscriber ({1}); waiters poll at most every second"
                                + " until one is granted",
                        storeName,
                        e.toString());
            }
            return null;
        }
    }

    /** Unsubscribes the channels nobody has waited on for {@value #IDLE_MILLIS} ms; under {@link #lock}. */
    private void sweep(long now) {
        sweptNanos = now;
        long idle = TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
        channels.entrySet().removeIf(entry -> {
            Channel channel = entry.getValue();
            if (channel.waiters > 0 || now - channel.idleSinceNanos < idle) {
                return false;
            }
            return channel.shard == null || channel.shard.unsubscribe(entry.getKey());
        });
    }

    /** One master's subscribed connection and the thread that reads it. */
    private final class Shard extends JedisShardedPubSub {

        private final HostAndPort node;
        private final Connection connection;
        /** Channels this shard subscribes; guarded by {@link #lock}. */
        private final Set<String> subscribed = new LinkedHashSet<>();
        /** Channels waiting for the subscription to start; guarded by {@link #lock}. */
        private final List<String> pending = new ArrayList<>();
        /**
         * Channels whose {@code SSUBSCRIBE} this shard's thread sends later, so that it may reach Redis after their
         * waiter recorded itself: their first confirmation wakes the waiter; guarded by {@link #lock}.
         */
        private final Set<String> late = new HashSet<>();
        /** Whether Redis confirmed a first channel, so that more can be sent; guarded by {@link #lock}. */
        private boolean started;

        private Thread thread;
        private volatile long heardNanos = System.nanoTime();
        private volatile long probedNanos = heardNanos - 1;

        Shard(HostAndPort node, Connection connection) {
            this.node = node;
            this.connection = connection;
        }

        /** Under {@link #lock}. */
        void subscribe(String channel) {
            subscribed.add(channel);
            if (!started) {
                pending.add(channel);
                late.add(channel);
                return;
            }
            try {
                ssubscribe(channel);
            } catch (RuntimeException e) {
                drop(); // the link broke: the thread ends and the waiters route again
            }
        }

        /** Under {@link #lock}; @return whether the channel is unsubscribed (or being) */
        boolean unsubscribe(String channel) {
            if (!started) {
                return false; // sent with the first subscription: it goes at a later sweep
            }
            subscribed.remove(channel);
            try {
                sunsubscribe(channel);
            } catch (RuntimeException e) {
                drop();
            }
            return true;
        }

        /** Under {@link #lock}. */
        void unsubscribeAll() {
            if (started) {
                try {
                    sunsubscribe();
                } catch (RuntimeException e) {
                    drop();
                }
            }
        }

        /** Under {@link #lock}. */
        void watch(long now) {
            if (started && subscribed.isEmpty()) {
                return;
            }
            long heard = heardNanos;
            long probed = probedNanos;
            // unanswered: the first SSUBSCRIBE (sent when the shard began, where heardNanos starts), or a probe
            long asked = started ? probed : heard;
            if (!started || probed - heard > 0) {
                if (now - asked > TimeUnit.MILLISECONDS.toNanos(ReleaseSubscriber.SILENCE_LIMIT_MILLIS)) {
                    LOG.log(
                            Level.WARNING,
                            "Store ''{0}'': the release subscription on {1} has not answered for {2} ms; dropping"
                                    + " its connection",
                            storeName,
                            node,
                            TimeUnit.NANOSECONDS.toMillis(now - asked));
                    drop();
                }
            } else if (now - heard > TimeUnit.MILLISECONDS.toNanos(ReleaseSubscriber.PROBE_AFTER_MILLIS)) {
                probedNanos = now;
                try {
                    ssubscribe(subscribed.iterator().next()); // subscribed already: Redis just confirms it
                } catch (RuntimeException e) {
                    drop();
                }
            }
        }

        void run() {
            String[] first;
            lock.lock();
            try {
                first = pending.toArray(String[]::new);
                pending.clear();
            } finally {
                lock.unlock();
            }
            RuntimeException failure = null;
            try {
                if (first.length > 0) {
                    proceed(connection, first); // blocks while subscribed
                }
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                drop(); // never back to the pool for commands: a late (un)subscription reply may still be on its way
                giveBack(connection);
                ended(failure);
            }
        }

        /** The subscription ended: forget this shard and wake the waiters of its channels to route them again. */
        private void ended(RuntimeException failure) {
            List<String> names = new ArrayList<>();
            boolean closing;
            boolean confirmedOnce;
            lock.lock();
            try {
                closing = closed;
                confirmedOnce = started;
                shards.remove(node, this);
                for (Channel channel : channels.values()) {
                    if (channel.shard == this) {
                        channel.shard = null;
                        channel.confirmed = false;
                        names.add(channel.name);
                    }
                }
            } finally {
                lock.unlock();
            }
            if (failure != null && !closing) {
                LOG.log(
                        Level.WARNING,
                        "Store ''{0}'': the release subscription on {1} is down ({2}); its waiters poll until they"
                                + " subscribe again on the master of their slot",
                        storeName,
                        node,
                        secrets.mask(failure.toString()));
            }
            if (!confirmedOnce) {
                // never subscribed (refused, or a dead node): waking the waiters would route them here again at once,
                // a loop of threads and connections for as long as the lock is held; they poll at their backoff
                return;
            }
            for (String name : names) {
                signals.signal(name);
            }
        }

        void stop() {
            Thread running = thread;
            if (running == null) {
                return;
            }
            try {
                running.join(200);
                if (running.isAlive()) {
                    drop(); // a silent link never answers the unsubscription: end the blocked read
                }
                running.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Closes the socket at once, without flushing into a link that may not take anything any more. */
        private void drop() {
            try {
                connection.forceDisconnect();
            } catch (java.io.IOException | RuntimeException e) {
                // closing a socket that is already closed: nothing left to do
            }
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            heardNanos = System.nanoTime();
            String newlyHeard = null;
            lock.lock();
            try {
                if (!started) {
                    started = true;
                    if (closed) {
                        sunsubscribe();
                        return;
                    }
                    if (!pending.isEmpty()) {
                        ssubscribe(pending.toArray(String[]::new));
                        pending.clear();
                    }
                }
                Channel waited = channels.get(channel);
                if (waited != null && waited.shard == this) {
                    if (late.remove(channel) && !waited.confirmed) {
                        newlyHeard = waited.name;
                    }
                    waited.confirmed = true;
                    confirmed.signalAll();
                }
            } finally {
                lock.unlock();
            }
            if (newlyHeard != null) {
                // a release published before this subscription reached Redis was heard by nobody: look again
                signals.signal(newlyHeard);
            }
        }

        @Override
        public void onSMessage(String channel, String message) {
            heardNanos = System.nanoTime();
            String name = RedisKeys.nameOf(message);
            signals.signal(name == null ? message : name);
        }

        /** Ours (a sweep), or the master's: it gave the slot away, and the channel's waiters must route again. */
        @Override
        public void onSUnsubscribe(String channel, int subscribedChannels) {
            heardNanos = System.nanoTime();
            String moved = null;
            lock.lock();
            try {
                subscribed.remove(channel);
                Channel waited = channels.get(channel);
                if (waited != null && waited.shard == this) {
                    waited.shard = null;
                    waited.confirmed = false;
                    moved = waited.name;
                }
            } finally {
                lock.unlock();
            }
            if (moved != null) {
                signals.signal(moved);
            }
        }
    }
}

package dev.exclusive.redis;

import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;

/**
 * The one subscriber of a store: a daemon thread that holds one connection subscribed to
 * {@link RedisKeys#RELEASED_CHANNEL} and turns each message (a lease key; from the previous version, a lock name)
 * into a {@link LocalSignals#signal} for the waiters of this JVM. However many threads wait, there is one thread
 * and one connection.
 *
 * <p>The thread comes from the store's thread factory (inside a Jakarta EE server, the container's managed one),
 * is started on the first wait and ends with {@link #close()}. A factory that refuses a thread (a container
 * shutting down) leaves waiters polling at the store's backoff; the next wait asks the factory again.
 *
 * <p>The connection comes from the client's pools ({@link RedisTopology#subscriberConnection()}) and is destroyed, never
 * pooled again, when its subscription ends: its pool in
 * standalone mode, the current master's in Sentinel mode, any node's in Cluster mode before Redis 7 (a {@code PUBLISH}
 * reaches every node of a cluster; from 7 on, {@link ShardedReleaseSubscriber} takes its place). When it breaks (Redis restarts, a failover), the thread subscribes again with a
 * backoff of 50 ms to 1 s; each (re)subscription wakes every waiter, since messages published meanwhile are lost.
 *
 * <p>Watchdog. A link can also fall silent without closing (a half-open TCP connection: a peer or a firewall gone
 * without a word), and a subscriber only reads, so it would never notice. While threads of the store wait, each
 * of their checks calls {@link #watch()}: when nothing was heard for {@value #PROBE_AFTER_MILLIS} ms it probes the
 * subscribed connection (subscribes again, which Redis confirms), and when that probe (or the subscription itself)
 * goes unanswered for {@value #SILENCE_LIMIT_MILLIS} ms it drops the connection, and the thread subscribes again on a
 * new one. Waiters check at least every second, so a silent link is replaced within about
 * {@value #SILENCE_LIMIT_MILLIS} ms plus two seconds of the first wait after it fell silent; meanwhile waiters re-check
 * by polling as always. Nobody waiting, nobody needs the messages, and nothing is sent. A client of the application's whose pools the store
 * cannot see is subscribed through {@link redis.clients.jedis.UnifiedJedis#subscribe} without a watchdog.
 */
final class ReleaseSubscriber {

    private static final Logger LOG = System.getLogger(ReleaseSubscriber.class.getName());
    private static final long MIN_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 1_000;
    /** Silence after which a waiter's check probes the subscribed connection. */
    static final long PROBE_AFTER_MILLIS = 1_000;
    /** Silence after a probe (or a subscription) after which the connection counts as dead. */
    static final long SILENCE_LIMIT_MILLIS = 2_000;

    private final RedisTopology topology;
    private final LocalSignals signals;
    private final String storeName;
    private final ThreadFactory threads;
    private final Secrets secrets;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stateChanged = lock.newCondition();
    private volatile Thread thread;
    /** The subscribed connection while there is one, for the watchdog to drop. */
    private volatile Connection connection;
    /** When anything last came from the subscribed connection (or the subscription was sent). */
    private final AtomicLong heardNanos = new AtomicLong(System.nanoTime());
    /** When the watchdog last probed; before {@link #heardNanos} when no probe is outstanding. */
    private final AtomicLong probedNanos = new AtomicLong(System.nanoTime());

    private volatile Listener listener;
    private boolean listening;
    private boolean closed;
    private boolean refusalLogged;

    /**
     * @param threads where the thread comes from; it names it and makes it a daemon (see
     *                {@link dev.exclusive.spi.NamedThreads})
     */
    ReleaseSubscriber(RedisTopology topology, LocalSignals signals, String storeName, ThreadFactory threads) {
        this.topology = topology;
        this.signals = signals;
        this.storeName = storeName;
        this.threads = threads;
        this.secrets = topology.secrets();
    }

    /**
     * The watchdog's step, run by waiting threads (cheap: two clock readings when the link talks): probes a
     * connection silent for {@value #PROBE_AFTER_MILLIS} ms, and drops one whose probe or subscription went
     * unanswered for {@value #SILENCE_LIMIT_MILLIS} ms.
     */
    void watch() {
        Connection current = connection;
        Listener subscribed = listener;
        if (current == null || subscribed == null) {
            return;
        }
        long now = System.nanoTime();
        long heard = heardNanos.get();
        long probed = probedNanos.get();
        boolean awaitingReply = probed - heard > 0 || !subscribed.confirmed;
        long since = awaitingReply ? (subscribed.confirmed ? probed : heard) : heard;
        if (awaitingReply && now - since > TimeUnit.MILLISECONDS.toNanos(SILENCE_LIMIT_MILLIS)) {
            LOG.log(
                    Level.WARNING,
                    "Store ''{0}'': the release subscription has not answered for {1} ms; dropping its connection"
                            + " and subscribing again",
                    storeName,
                    TimeUnit.NANOSECONDS.toMillis(now - since));
            drop(current); // the subscriber's blocked read fails now, and it subscribes again
        } else if (!awaitingReply
                && now - heard > TimeUnit.MILLISECONDS.toNanos(PROBE_AFTER_MILLIS)
                && probedNanos.compareAndSet(probed, now)) {
            probe(current, subscribed);
        }
    }

    /**
     * The watchdog's probe of the subscribed connection: it subscribes again to the channel it listens on, which Redis
     * only confirms ({@link Listener#onSubscribe}), as {@link ShardedReleaseSubscriber}'s probe does. Not a
     * {@code PING}: Jedis 8 speaks RESP3, where a subscribed connection's {@code PING} is answered with a plain
     * {@code PONG} that Jedis matches to a handler it queues only after the {@code PING} has gone out, so a subscriber
     * thread that read the answer first failed with "Unexpected message : PONG" and the subscription went down.
     */
    private void probe(Connection current, Listener subscribed) {
        try {
            subscribed.subscribe(RedisKeys.RELEASED_CHANNEL);
        } catch (RuntimeException e) {
            drop(current); // the link is already broken: make sure the subscriber sees it
        }
    }

    /** Sends the watchdog's probe now, as after a silence; for tests. */
    void probeNow() {
        Connection current = connection;
        Listener subscribed = listener;
        if (current != null && subscribed != null) {
            probedNanos.set(System.nanoTime());
            probe(current, subscribed);
        }
    }

    /** Starts the thread on first use; later calls are cheap. */
    void start() {
        if (thread != null) {
            return;
        }
        lock.lock();
        try {
            if (thread == null && !closed) {
                Thread started;
                try {
                    started = threads.newThread(this::run);
                } catch (RuntimeException e) {
                    if (!refusalLogged) {
                        refusalLogged = true;
                        LOG.log(
                                Level.WARNING,
                                "Store ''{0}'': no thread for the release subscriber ({1}); waiters poll at most "
                                        + "every second until one is granted",
                                storeName,
                                e.toString());
                    }
                    return;
                }
                started.start();
                thread = started;
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the subscribed connection of the store's pools, or {@code null}; for tests */
    Connection connection() {
        return connection;
    }

    /** @return whether the subscription is confirmed by Redis now */
    boolean listening() {
        lock.lock();
        try {
            return listening;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the subscription is confirmed, for tests.
     *
     * @return {@code true} if listening before the timeout
     */
    boolean awaitListening(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!listening && nanos > 0) {
                nanos = stateChanged.awaitNanos(nanos);
            }
            return listening;
        } finally {
            lock.unlock();
        }
    }

    /** Unsubscribes and stops the thread; the connection goes back to the client. */
    void close() {
        Thread running;
        Listener current;
        lock.lock();
        try {
            closed = true;
            running = thread;
            current = listener;
        } finally {
            lock.unlock();
        }
        if (running == null) {
            return;
        }
        if (current != null && current.isSubscribed()) {
            try {
                current.unsubscribe();
            } catch (RuntimeException e) {
                LOG.log(
                        Level.DEBUG,
                        "Store ''{0}'': unsubscribing failed; the thread is interrupted instead",
                        storeName);
            }
        }
        running.interrupt();
        try {
            running.join(200);
            Connection stuck = connection;
            if (running.isAlive() && stuck != null) {
                drop(stuck); // a silent link never answers the unsubscription: end the blocked read
            }
            running.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long backoff = MIN_BACKOFF_MILLIS;
        boolean failing = false;
        while (!isClosed()) {
            Listener current = new Listener();
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                listener = current;
            } finally {
                lock.unlock();
            }
            try {
                subscribe(current); // blocks while subscribed
                backoff = MIN_BACKOFF_MILLIS;
            } catch (RuntimeException e) {
                if (isClosed()) {
                    return;
                }
                if (!failing || current.confirmed) {
                    LOG.log(
                            Level.WARNING,
                            "Store ''{0}'': the release subscription is down ({1}); waiters poll "
                                    + "at most every second until it is back",
                            storeName,
                            secrets.mask(e.toString()));
                }
                failing = true;
                if (current.confirmed) {
                    backoff = MIN_BACKOFF_MILLIS;
                }
            } finally {
                setListening(false);
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                return; // only close() interrupts this thread
            }
            backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
    }

    /** Subscribes {@code current} on a connection of its own, watched, or through the client when there is none. */
    private void subscribe(Listener current) {
        Connection own = topology.subscriberConnection();
        if (own == null) {
            topology.client().subscribe(current, RedisKeys.RELEASED_CHANNEL);
            return;
        }
        try {
            heardNanos.set(System.nanoTime());
            probedNanos.set(heardNanos.get());
            connection = own;
            current.proceed(own, RedisKeys.RELEASED_CHANNEL);
        } finally {
            connection = null;
            // never back to the pool for commands: a reply nobody read (a watchdog probe answered after the
            // unsubscription) would be taken by the next command as its own answer. Closed broken, it is destroyed.
            drop(own);
            // quietly: the failure that ended the subscription is the one to log, not the pool's failure to open a
            // replacement for its idle minimum while Redis is down
            ShardedReleaseSubscriber.giveBack(own);
        }
    }

    /** Closes the socket at once, without flushing into a link that may not take anything any more. */
    private static void drop(Connection dead) {
        try {
            dead.forceDisconnect();
        } catch (java.io.IOException | RuntimeException e) {
            // closing a socket that is already closed: nothing left to do
        }
    }

    /** Something came from the subscribed connection: it is alive, and no probe is outstanding. */
    private void heard() {
        long now = System.nanoTime();
        heardNanos.set(now);
        probedNanos.set(now - 1);
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void setListening(boolean now) {
        lock.lock();
        try {
            listening = now;
            stateChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Receives the messages and the confirmations; Jedis calls it on the subscriber thread. */
    private final class Listener extends JedisPubSub {

        volatile boolean confirmed;

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            heard();
            if (confirmed) {
                return; // the watchdog's probe, confirmed: nothing was missed
            }
            confirmed = true;
            if (isClosed()) {
                unsubscribe();
                return;
            }
            signals.signalAll(); // releases published while nobody listened are lost: let waiters look again
            setListening(true);
            LOG.log(Level.DEBUG, "Store ''{0}'': listening for releases", storeName);
        }

        @Override
        public void onMessage(String channel, String message) {
            heard();
            // this version publishes the lease key; the previous one published the name
            String name = RedisKeys.nameOf(message);
            signals.signal(name == null ? message : name);
        }
    }
}

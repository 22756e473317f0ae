package dev.exclusive.redis;

import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

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
 * <p>The connection comes from the client ({@link UnifiedJedis#subscribe}): from its pool in standalone and
 * Sentinel mode, from any node in Cluster mode (a {@code PUBLISH} reaches every node of a cluster). When it
 * breaks (Redis restarts, a failover), the thread subscribes again with a backoff of 50 ms to 1 s; each
 * (re)subscription wakes every waiter, since messages published meanwhile are lost.
 */
final class ReleaseSubscriber {

    private static final Logger LOG = System.getLogger(ReleaseSubscriber.class.getName());
    private static final long MIN_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 1_000;

    private final UnifiedJedis client;
    private final LocalSignals signals;
    private final String storeName;
    private final ThreadFactory threads;
    private final Secrets secrets;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stateChanged = lock.newCondition();
    private volatile Thread thread;
    private Listener listener;
    private boolean listening;
    private boolean closed;
    private boolean refusalLogged;

    /**
     * @param threads where the thread comes from; it names it and makes it a daemon (see
     *                {@link dev.exclusive.spi.NamedThreads})
     */
    ReleaseSubscriber(
            UnifiedJedis client, LocalSignals signals, String storeName, ThreadFactory threads, Secrets secrets) {
        this.client = client;
        this.signals = signals;
        this.storeName = storeName;
        this.threads = threads;
        this.secrets = secrets;
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
                client.subscribe(current, RedisKeys.RELEASED_CHANNEL); // blocks while subscribed
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

    /** Receives the messages; Jedis calls it on the subscriber thread. */
    private final class Listener extends JedisPubSub {

        volatile boolean confirmed;

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
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
            // this version publishes the lease key; the previous one published the name
            String name = RedisKeys.nameOf(message);
            signals.signal(name == null ? message : name);
        }
    }
}

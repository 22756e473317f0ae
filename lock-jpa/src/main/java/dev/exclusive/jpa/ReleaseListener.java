package dev.exclusive.jpa;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The one listener of a store on PostgreSQL: a daemon thread that holds one connection of the unit on
 * {@code LISTEN} for the table's channel and hands each notification (a freed lock name, sent by the release's own
 * statement) to the store, which wakes a waiter of this JVM. However many threads wait, there is one thread and one
 * connection. The notifications of the store's own releases, which woke a waiter of this JVM already, are announced
 * by the store ({@link #expect}) and skipped, so that one release wakes one waiter here, not two.
 *
 * <p>The thread comes from the store's thread factory (inside a Jakarta EE server, the container's managed one), is
 * started on the first wait and ends with {@link #close()}, within a quarter of a second (the longest it waits for
 * notifications at a time); a thread that waits longer for an answer (a ping on a silent link) has its connection
 * aborted by {@code close()} and ends then. When the connection breaks, the thread gives it back and listens on a new
 * one with a backoff of 50 ms to 1 s; each (re)start wakes every waiter, since notifications sent meanwhile are lost.
 * Waiters keep polling at a slow pace meanwhile, and for expiries, which nobody notifies.
 *
 * <p>A link that falls silent without closing (half-open TCP: a network or a firewall that stops carrying packets)
 * breaks nothing that the listener would see: it waits for notifications, and none come. So it pings its connection
 * (its {@code LISTEN} again) after {@value #PING_AFTER_MILLIS} ms without a word from the server while threads of this
 * JVM wait for a release, and after {@value #IDLE_PING_AFTER_MILLIS} ms otherwise (which also keeps the link through
 * firewalls that drop idle connections). The connection carries the store's network timeout, so a ping that goes
 * unanswered fails within the store's timeout, and the thread listens on a new connection as after any break. A
 * connection that takes no network timeout is never pinged (an unanswered ping would block the thread for ever).
 *
 * <p>The notifications are read with the PostgreSQL driver's {@code PGConnection.getNotifications(int)}, found
 * reflectively so that the driver is not needed at compile time. A connection that cannot be unwrapped to it (a
 * pool that hides the driver's classes) leaves waiters on the store's backoff, with one log line saying so.
 */
final class ReleaseListener {

    private static final Logger LOG = System.getLogger(ReleaseListener.class.getName());
    private static final long MIN_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 1_000;
    private static final int POLL_MILLIS = 250;
    /** Silence of the listening connection after which it is pinged, while waiters of this JVM wait. */
    static final long PING_AFTER_MILLIS = 1_000;
    /** Silence of the listening connection after which it is pinged, while nobody waits. */
    static final long IDLE_PING_AFTER_MILLIS = 30_000;

    private final Connections connections;
    private final String channel;
    private final String storeName;
    private final ThreadFactory threads;
    private final Consumer<String> released;
    private final Runnable restarted;
    private final BooleanSupplier waiting;
    private final ConcurrentHashMap<String, Integer> own = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Thread thread;
    /** The connection the thread listens on now, if any; {@link #close()} aborts it when the thread is blocked. */
    private volatile Connection listeningOn;

    private boolean listening;
    private boolean closed;
    private boolean refusalLogged;

    /**
     * @param threads   where the thread comes from; it names it and makes it a daemon (see
     *                  {@link dev.exclusive.spi.NamedThreads})
     * @param released  what a notification of another store's release does: wake a waiter on that name
     * @param restarted what each start of listening does: wake every waiter, since notifications sent while nobody
     *                  listened are lost
     * @param waiting   whether threads of this JVM wait for a release now, which makes a silent connection worth a
     *                  ping sooner
     */
    ReleaseListener(
            Connections connections,
            String channel,
            String storeName,
            ThreadFactory threads,
            Consumer<String> released,
            Runnable restarted,
            BooleanSupplier waiting) {
        this.connections = connections;
        this.channel = channel;
        this.storeName = storeName;
        this.threads = threads;
        this.released = released;
        this.restarted = restarted;
        this.waiting = waiting;
    }

    /**
     * Announces a release by this store that may notify {@code name}: its notification is then skipped once. Call
     * before the statement, so that the notification cannot arrive first; {@link #unexpect} if it freed nothing.
     */
    void expect(String name) {
        own.merge(name, 1, Integer::sum);
    }

    /**
     * Withdraws an {@link #expect} whose release freed nothing (or failed), so sent no notification.
     *
     * @return {@code false} if there was nothing to withdraw: a notification of {@code name} arrived meanwhile and was
     *     skipped as this release's own, though it was another release's, so nobody here was woken by it
     */
    boolean unexpect(String name) {
        boolean[] withdrawn = new boolean[1];
        own.computeIfPresent(name, (key, count) -> {
            withdrawn[0] = true;
            return count == 1 ? null : count - 1;
        });
        return withdrawn[0];
    }

    /** @return whether the notification of {@code name} was an expected one of this store (now consumed) */
    private boolean wasOwn(String name) {
        return unexpect(name);
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
                                "Store ''{0}'': no thread for the release listener ({1}); waiters poll at the"
                                        + " store''s backoff until one is granted",
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

    /** @return whether the connection is listening now */
    boolean listening() {
        lock.lock();
        try {
            return listening;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the thread and gives its connection back; waits up to two seconds for it to end. */
    void close() {
        Thread running;
        lock.lock();
        try {
            closed = true;
            running = thread;
        } finally {
            lock.unlock();
        }
        if (running == null) {
            return;
        }
        running.interrupt();
        try {
            running.join(POLL_MILLIS * 2L);
            if (running.isAlive()) {
                abortListening(); // a statement that waits for its answer (a ping on a silent link)
                running.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Aborts the listening connection ({@link Connection#abort}: the driver closes its socket at once), so that a
     * thread blocked on it fails now rather than within the store's timeout. A connection that refuses to abort is
     * left to its timeout.
     */
    private void abortListening() {
        Connection current = listeningOn;
        if (current == null) {
            return;
        }
        try {
            current.abort(Connections.DIRECT);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            LOG.log(
                    Level.DEBUG,
                    "Store ''{0}'': the listening connection could not be aborted ({1}); its thread ends within the"
                            + " store''s timeout",
                    storeName,
                    e.toString());
        }
    }

    private void run() {
        long backoff = MIN_BACKOFF_MILLIS;
        boolean failing = false;
        while (!isClosed()) {
            Connection connection = null;
            boolean broken = true;
            int ownTimeout = Connections.UNSET;
            try {
                connection = connections.open();
                listeningOn = connection;
                if (isClosed()) {
                    return; // closed while it opened: close() may have looked before the connection was known
                }
                Notifications notifications = Notifications.of(connection);
                if (notifications == null) {
                    LOG.log(
                            Level.INFO,
                            "Store ''{0}'': the connection does not unwrap to the PostgreSQL driver''s PGConnection;"
                                    + " waiters in other JVMs learn of releases by polling",
                            storeName);
                    broken = false;
                    return;
                }
                connection.setAutoCommit(true);
                ownTimeout = connections.bound(connection); // before LISTEN: a silent link fails it too
                boolean pingable = ownTimeout != Connections.UNSET;
                listen(connection);
                own.clear(); // whatever was expected before this connection listened is not coming
                setListening(true);
                restarted.run(); // releases notified while nobody listened are lost: let waiters look again
                failing = false;
                backoff = MIN_BACKOFF_MILLIS;
                long heard = System.nanoTime();
                while (!isClosed()) {
                    String[] names = notifications.await(POLL_MILLIS);
                    long now = System.nanoTime();
                    if (names.length > 0) {
                        heard = now;
                    }
                    for (String name : names) {
                        if (!wasOwn(name)) {
                            released.accept(name);
                        }
                    }
                    if (pingable && now - heard > silenceLimit()) {
                        listen(connection); // a ping that changes nothing: it listens already
                        heard = System.nanoTime();
                    }
                }
                broken = !unlisten(connection);
            } catch (SQLException | RuntimeException e) {
                if (isClosed()) {
                    return;
                }
                if (!failing) {
                    LOG.log(
                            Level.WARNING,
                            "Store ''{0}'': the release listener lost its connection ({1}); waiters in this JVM poll"
                                    + " until it listens again",
                            storeName,
                            e.toString());
                }
                failing = true;
            } finally {
                setListening(false);
                listeningOn = null;
                if (connection != null) {
                    if (!broken) {
                        Connections.unbound(connection, ownTimeout);
                    }
                    giveBack(connection, broken);
                }
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                return; // only close() interrupts this thread
            }
            backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
    }

    /** @return how long the listening connection may be silent before it is pinged, in nanoseconds */
    private long silenceLimit() {
        return TimeUnit.MILLISECONDS.toNanos(waiting.getAsBoolean() ? PING_AFTER_MILLIS : IDLE_PING_AFTER_MILLIS);
    }

    /**
     * Listens on the channel: first to start, then as the ping (the server answers a {@code LISTEN} of a channel the
     * session listens on already, and {@code pg_stat_activity} still shows the session's query as the {@code LISTEN});
     * a link that fell silent fails it within the connection's network timeout.
     */
    private void listen(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN \"" + channel + "\"");
        }
    }

    /** @return whether the connection stopped listening cleanly, so that it can serve statements again */
    private boolean unlisten(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Gives the connection back; a broken one (or one that may still listen) is closed first, so that the pool
     * discards it rather than hand it to a statement.
     */
    private void giveBack(Connection connection, boolean broken) {
        if (broken) {
            try {
                connection.close();
            } catch (SQLException e) {
                // already unusable: the pool discards it
            }
        }
        connections.release(connection, false);
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
        } finally {
            lock.unlock();
        }
    }

    /** The driver's {@code getNotifications(int)} on one connection, reached reflectively. */
    private record Notifications(Object connection, Method await, Method parameter) {

        private static final String PG_CONNECTION = "org.postgresql.PGConnection";
        private static final String PG_NOTIFICATION = "org.postgresql.PGNotification";

        /** @return the driver's view of {@code connection}, or {@code null} if its classes cannot be reached */
        static Notifications of(Connection connection) throws SQLException {
            for (ClassLoader loader : new ClassLoader[] {
                connection.getClass().getClassLoader(),
                Thread.currentThread().getContextClassLoader(),
                ReleaseListener.class.getClassLoader()
            }) {
                try {
                    Class<?> type = Class.forName(PG_CONNECTION, false, loader);
                    if (connection.isWrapperFor(type)) {
                        Class<?> notification = Class.forName(PG_NOTIFICATION, false, type.getClassLoader());
                        return new Notifications(
                                connection.unwrap(type),
                                type.getMethod("getNotifications", int.class),
                                notification.getMethod("getParameter"));
                    }
                } catch (ClassNotFoundException | NoSuchMethodException e) {
                    // not visible from this loader: try the next
                }
            }
            return null;
        }

        /** @return the names notified within {@code millis}; none if nothing came */
        String[] await(int millis) throws SQLException {
            try {
                Object[] received = (Object[]) await.invoke(connection, millis);
                if (received == null) {
                    return new String[0];
                }
                String[] names = new String[received.length];
                for (int i = 0; i < received.length; i++) {
                    names[i] = (String) parameter.invoke(received[i]);
                }
                return names;
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw sql;
                }
                throw new SQLException("Reading notifications failed: " + e.getCause(), e.getCause());
            } catch (IllegalAccessException e) {
                throw new SQLException("Reading notifications failed: " + e, e);
            }
        }
    }
}

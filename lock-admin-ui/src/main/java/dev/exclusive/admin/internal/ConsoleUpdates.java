package dev.exclusive.admin.internal;

import dev.exclusive.cdi.ExclusiveThreads;
import dev.exclusive.cdi.LockAcquired;
import dev.exclusive.cdi.LockForceReleased;
import dev.exclusive.cdi.LockLost;
import dev.exclusive.cdi.LockReleased;
import dev.exclusive.spi.NamedThreads;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tells open consoles that a lock changed in this JVM, so that they refresh at once instead of at their next
 * periodic refresh.
 *
 * <p>The lock events are observed on the thread that took or freed the lock: the observer only sets a flag and,
 * for the first change in a burst, schedules one delivery {@link #COALESCE} later on this bean's own thread. So a
 * busy application pays an event dispatch and a compare-and-set per lock operation, and each console refreshes at
 * most once per {@link #COALESCE}, never on the application's threads.
 *
 * <p>That thread, named {@value #THREAD_NAME}, comes from where lock-cdi's background threads come from
 * ({@link ExclusiveThreads}): inside a server the container's {@code ManagedThreadFactory}, looked up as the
 * application starts, so it carries the application's context and the server knows it; outside a container a plain
 * daemon thread. Either way it ends when the application stops.
 */
@ApplicationScoped
public class ConsoleUpdates {

    /** How long changes are gathered into one refresh. */
    public static final Duration COALESCE = Duration.ofMillis(150);

    /** The name of the thread that tells the consoles. */
    public static final String THREAD_NAME = "exclusive-console-updates";

    private static final System.Logger LOG = System.getLogger(ConsoleUpdates.class.getName());
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final Set<Runnable> subscribers = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong delivered = new AtomicLong();
    private final ThreadFactory threads;
    private ScheduledThreadPoolExecutor deliveries;
    private boolean closed;

    /** For the container's client proxy. */
    protected ConsoleUpdates() {
        this.threads = null;
    }

    /** @param threads where the thread comes from: lock-cdi's {@link ExclusiveThreads @ExclusiveThreads} factory */
    @Inject
    public ConsoleUpdates(@ExclusiveThreads ThreadFactory threads) {
        this.threads = NamedThreads.of(threads, THREAD_NAME);
    }

    /**
     * @param subscriber run on this bean's thread after lock changes; must not block for long
     * @return what to run to unsubscribe
     */
    public Runnable subscribe(Runnable subscriber) {
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }

    void acquired(@Observes LockAcquired event) {
        changed();
    }

    void released(@Observes LockReleased event) {
        changed();
    }

    void lost(@Observes LockLost event) {
        changed();
    }

    void forceReleased(@Observes LockForceReleased event) {
        changed();
    }

    /** Schedules a delivery unless one is pending or nobody listens. */
    public void changed() {
        if (subscribers.isEmpty() || !scheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            deliveries().schedule(this::deliver, COALESCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // shutting down: the consoles go with the application
            scheduled.set(false);
        }
    }

    /**
     * @return how many times the subscribers have been told of changes so far; it moves before they are told, so a
     *     listing read before the move is older than the change
     */
    public long changesDelivered() {
        return delivered.get();
    }

    private void deliver() {
        scheduled.set(false);
        delivered.incrementAndGet();
        for (Runnable subscriber : subscribers) {
            try {
                subscriber.run();
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "A lock console failed to refresh after a lock change; it refreshes again"
                                + " at its next periodic refresh",
                        e);
            }
        }
    }

    private synchronized ScheduledThreadPoolExecutor deliveries() {
        if (closed) {
            throw new IllegalStateException("The lock console's updates have stopped with the application");
        }
        if (deliveries == null) {
            LOG.log(Level.DEBUG, "Lock console updates run on {0}", threads);
            deliveries = new ScheduledThreadPoolExecutor(1, threads);
            deliveries.setRemoveOnCancelPolicy(true);
        }
        return deliveries;
    }

    /** Stops the thread with the application, waiting briefly for a delivery under way. */
    @PreDestroy
    void close() {
        ScheduledThreadPoolExecutor stopping;
        synchronized (this) {
            closed = true;
            subscribers.clear();
            stopping = deliveries;
        }
        if (stopping == null) {
            return;
        }
        stopping.shutdownNow();
        try {
            if (!stopping.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, "The lock console''s update thread did not stop within {0}", STOP_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

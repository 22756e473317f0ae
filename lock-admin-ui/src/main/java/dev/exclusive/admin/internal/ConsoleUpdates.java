package dev.exclusive.admin.internal;

import dev.exclusive.cdi.LockAcquired;
import dev.exclusive.cdi.LockForceReleased;
import dev.exclusive.cdi.LockLost;
import dev.exclusive.cdi.LockReleased;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells open consoles that a lock changed in this JVM, so that they refresh at once instead of at their next
 * periodic refresh.
 *
 * <p>The lock events are observed on the thread that took or freed the lock: the observer only sets a flag and,
 * for the first change in a burst, schedules one delivery {@link #COALESCE} later on this bean's own thread. So a
 * busy application pays an event dispatch and a compare-and-set per lock operation, and each console refreshes at
 * most once per {@link #COALESCE}, never on the application's threads.
 */
@ApplicationScoped
public class ConsoleUpdates {

    /** How long changes are gathered into one refresh. */
    public static final Duration COALESCE = Duration.ofMillis(150);

    private static final System.Logger LOG = System.getLogger(ConsoleUpdates.class.getName());

    private final Set<Runnable> subscribers = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private ScheduledThreadPoolExecutor deliveries;

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

    private void deliver() {
        scheduled.set(false);
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
        if (deliveries == null) {
            deliveries = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "exclusive-console-updates");
                thread.setDaemon(true);
                return thread;
            });
            deliveries.setRemoveOnCancelPolicy(true);
        }
        return deliveries;
    }

    @PreDestroy
    synchronized void close() {
        subscribers.clear();
        if (deliveries != null) {
            deliveries.shutdownNow();
        }
    }
}

package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.cdi.LockAcquired;
import dev.exclusive.cdi.LockBusy;
import dev.exclusive.cdi.LockForceReleased;
import dev.exclusive.cdi.LockLost;
import dev.exclusive.cdi.LockReleased;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;
import java.util.function.Supplier;

/**
 * Turns what the registry's handles do into CDI events. Only the event types that have observers at start-up
 * are fired; when none has, there is no bridge at all and the registry pays nothing per call.
 */
final class EventBridge implements LockListener {

    private final Event<LockAcquired> acquired;
    private final Event<LockReleased> released;
    private final Event<LockBusy> busy;
    private final Event<LockLost> lost;
    private final Event<LockForceReleased> forceReleased;
    private final Supplier<String> principalName;

    private EventBridge(BeanManager beanManager, Supplier<String> principalName) {
        this.acquired = observed(beanManager, new LockAcquired("", "", "", 0), LockAcquired.class);
        this.released = observed(beanManager, new LockReleased("", "", ""), LockReleased.class);
        this.busy = observed(beanManager, new LockBusy("", ""), LockBusy.class);
        this.lost = observed(beanManager, new LockLost("", "", ""), LockLost.class);
        this.forceReleased = observed(beanManager, new LockForceReleased("", "", false, null), LockForceReleased.class);
        this.principalName = principalName;
    }

    /** @return the bridge, or {@code null} if no lock event has an observer */
    static EventBridge create(BeanManager beanManager, ClassLoader loader) {
        EventBridge bridge = new EventBridge(beanManager, Principals.of(beanManager, loader));
        boolean anyObserved = bridge.acquired != null
                || bridge.released != null
                || bridge.busy != null
                || bridge.lost != null
                || bridge.forceReleased != null;
        return anyObserved ? bridge : null;
    }

    private static <T> Event<T> observed(BeanManager beanManager, T sample, Class<T> type) {
        return beanManager.resolveObserverMethods(sample).isEmpty()
                ? null
                : beanManager.getEvent().select(type);
    }

    @Override
    public void acquired(Lock lock) {
        if (acquired != null) {
            acquired.fire(new LockAcquired(
                    lock.storeName(), lock.name(), lock.owner(), lock.fence().orElse(0)));
        }
    }

    @Override
    public void busy(Lock lock) {
        if (busy != null) {
            busy.fire(new LockBusy(lock.storeName(), lock.name()));
        }
    }

    @Override
    public void released(Lock lock) {
        if (released != null) {
            released.fire(new LockReleased(lock.storeName(), lock.name(), lock.owner()));
        }
    }

    @Override
    public void lost(Lock lock) {
        if (lost != null) {
            lost.fire(new LockLost(lock.storeName(), lock.name(), lock.owner()));
        }
    }

    @Override
    public void forceReleased(String storeName, String name, boolean freed) {
        if (forceReleased != null) {
            forceReleased.fire(new LockForceReleased(storeName, name, freed, principalName.get()));
        }
    }
}

package dev.exclusive;

/**
 * Hears what the handles of a registry do, for events, metrics and the console. Called synchronously on the
 * thread that did it (renewal losses on the renewal thread), after the store answered: keep it fast and do
 * not throw; an exception from a listener is logged and otherwise ignored.
 */
public interface LockListener {

    /** @param lock the handle that acquired; {@link Lock#fence()} is its new fence */
    default void acquired(Lock lock) {}

    /** @param lock the handle that gave up: one attempt, or a whole wait, found the lock held */
    default void busy(Lock lock) {}

    /** @param lock the handle whose {@link Lock#release()} freed the lock */
    default void released(Lock lock) {}

    /** @param lock the auto-extending handle whose renewal found its lease gone */
    default void lost(Lock lock) {}

    /**
     * @param storeName the store
     * @param name      the full lock name
     * @param released  whether a live lock was freed
     */
    default void forceReleased(String storeName, String name, boolean released) {}
}

package dev.exclusive;

/**
 * Work that runs while a lock is held and returns nothing. It may throw any exception, checked or not; the
 * lock's callback methods rethrow it unchanged after releasing the lock.
 *
 * @param <E> the exception the work may throw ({@link RuntimeException} when it throws no checked one)
 */
@FunctionalInterface
public interface LockedTask<E extends Exception> {

    /** @throws E the work's own failure */
    void run() throws E;
}

package dev.exclusive;

/**
 * Work that runs while a lock is held and returns a value. It may throw any exception, checked or not; the
 * lock's callback methods rethrow it unchanged after releasing the lock.
 *
 * @param <T> the result type
 * @param <E> the exception the work may throw ({@link RuntimeException} when it throws no checked one)
 */
@FunctionalInterface
public interface LockedWork<T, E extends Exception> {

    /**
     * @return the work's result
     * @throws E the work's own failure
     */
    T run() throws E;
}

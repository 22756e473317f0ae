package dev.exclusive.cdi;

/**
 * An attempt (or a whole wait) found the lock held by someone else. Fired synchronously on the caller's thread,
 * only when an observer exists.
 *
 * @param storeName the store's configured name
 * @param lockName  the full lock name, store prefix included
 */
public record LockBusy(String storeName, String lockName) {}

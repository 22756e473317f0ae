package dev.exclusive.cdi;

/**
 * An auto-extending hold found its lease gone: someone else may hold the lock now while the work still runs.
 * Fired on the renewal thread, only when an observer exists.
 *
 * @param storeName the store's configured name
 * @param lockName  the full lock name, store prefix included
 * @param owner     the owner id that lost the lease
 */
public record LockLost(String storeName, String lockName, String owner) {}

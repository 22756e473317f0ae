package dev.exclusive.cdi;

/**
 * A lock was acquired. Fired synchronously on the acquiring thread, only when an observer exists.
 *
 * @param storeName the store's configured name
 * @param lockName  the full lock name, store prefix included
 * @param owner     the acquiring handle's owner id
 * @param fence     the fencing token of this hold
 */
public record LockAcquired(String storeName, String lockName, String owner, long fence) {}

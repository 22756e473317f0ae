package dev.exclusive.cdi;

/**
 * A hold was released by its owner. Fired synchronously on the releasing thread, only when an observer exists.
 *
 * @param storeName the store's configured name
 * @param lockName  the full lock name, store prefix included
 * @param owner     the releasing handle's owner id
 */
public record LockReleased(String storeName, String lockName, String owner) {}

package dev.exclusive.cdi;

/**
 * An operator freed a lock whoever held it. Fired synchronously on the caller's thread, only when an observer
 * exists.
 *
 * @param storeName     the store's configured name
 * @param lockName      the full lock name, store prefix included
 * @param released      whether a live lock was freed ({@code false}: it was free already)
 * @param principalName the caller's principal name when there is an authenticated caller, else {@code null}
 */
public record LockForceReleased(String storeName, String lockName, boolean released, String principalName) {}

package dev.exclusive;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A live lock as a store reported it: for operators, the console and {@link LockRegistry#liveLocks}.
 *
 * <p>{@code acquiredAt} and {@code expiresAt} are read from the clock that decides expiry in that store (the
 * JVM for {@code memory}, the host for {@code file}, the Redis or database server for {@code redis} and
 * {@code jpa}); {@link #remaining()} is computed by the store when it was asked, so it does not depend on
 * this JVM's clock agreeing with the store's.
 *
 * @param store      the configured store's name
 * @param name       the full lock name, store prefix included
 * @param owner      the owner id of the handle that holds it
 * @param holder     who holds it
 * @param acquiredAt when the current holder acquired it (extensions do not change it)
 * @param expiresAt  when the current lease ends unless extended
 * @param remaining  how long the lease still ran when the store answered
 * @param fence      the fencing token of the current hold
 */
public record LockInfo(
        String store,
        String name,
        String owner,
        LockHolder holder,
        Instant acquiredAt,
        Instant expiresAt,
        Duration remaining,
        long fence) {

    /**
     * Checks that every component but {@code fence} is non-{@code null}.
     *
     * @param store      the configured store's name
     * @param name       the full lock name
     * @param owner      the owner id of the holding handle
     * @param holder     who holds it
     * @param acquiredAt when the current holder acquired it
     * @param expiresAt  when the current lease ends unless extended
     * @param remaining  how long the lease still ran when the store answered
     * @param fence      the fencing token of the current hold
     */
    public LockInfo {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(remaining, "remaining");
    }
}

package dev.exclusive.spi;

import dev.exclusive.LockHolder;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A live lock as a store sees it. Stores never return an expired entry.
 *
 * @param name       the full lock name
 * @param owner      the owner id that holds it
 * @param holder     who holds it
 * @param acquiredAt when the current hold began, by the store's expiry clock
 * @param expiresAt  when the lease ends unless extended, by the store's expiry clock
 * @param remaining  {@code expiresAt} minus the store's clock at the time of the answer; positive
 * @param fence      the fencing token of the current hold
 */
public record LockEntry(
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
     * @param name       the full lock name
     * @param owner      the owner id that holds it
     * @param holder     who holds it
     * @param acquiredAt when the current hold began
     * @param expiresAt  when the lease ends unless extended
     * @param remaining  how long the lease still ran when the store answered
     * @param fence      the fencing token of the current hold
     */
    public LockEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(remaining, "remaining");
    }
}

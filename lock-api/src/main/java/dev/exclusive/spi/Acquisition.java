package dev.exclusive.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The outcome of one {@link LockStore#tryAcquire} attempt: either the lease that was granted, or the news that
 * someone else (possibly the same owner) holds the lock.
 */
public sealed interface Acquisition {

    /** @return {@code true} for {@link Acquired} */
    boolean acquired();

    /**
     * The caller now holds the lock.
     *
     * @param fence      the fencing token of this hold: greater than every fence this store granted for the
     *                   name before
     * @param acquiredAt when it was acquired, by the store's expiry clock
     * @param expiresAt  when the lease ends unless extended, by the store's expiry clock
     */
    record Acquired(long fence, Instant acquiredAt, Instant expiresAt) implements Acquisition {

        /**
         * Checks that both times are non-{@code null}.
         *
         * @param fence      the fencing token of this hold
         * @param acquiredAt when it was acquired
         * @param expiresAt  when the lease ends unless extended
         */
        public Acquired {
            Objects.requireNonNull(acquiredAt, "acquiredAt");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }

        @Override
        public boolean acquired() {
            return true;
        }
    }

    /**
     * Someone holds the lock.
     *
     * @param remaining how long the current lease still runs, or {@code null} when the store did not find
     *                  out; waiters use it to wake when the lease expires
     */
    record Busy(Duration remaining) implements Acquisition {

        private static final Busy UNKNOWN = new Busy(null);

        /** @return a busy outcome whose remaining lease is unknown */
        public static Busy unknown() {
            return UNKNOWN;
        }

        @Override
        public boolean acquired() {
            return false;
        }
    }
}

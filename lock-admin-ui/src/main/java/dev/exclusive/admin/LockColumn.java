package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.util.Comparator;

/** A property of a live lock that the console shows and sorts by. */
public enum LockColumn {
    /** The configured store's name. */
    STORE(Comparator.comparing(LockInfo::store)),
    /** The full lock name. */
    NAME(Comparator.comparing(LockInfo::name)),
    /** The holder's instance, then its thread. */
    HOLDER(Comparator.comparing((LockInfo lock) -> lock.holder().instance())
            .thenComparing(lock -> lock.holder().thread())),
    /** What the holder said it is doing ({@code Class#method} for {@code @Exclusive}). */
    PURPOSE(Comparator.comparing((LockInfo lock) -> lock.holder().purpose())),
    /** When the current holder acquired it. */
    ACQUIRED_AT(Comparator.comparing(LockInfo::acquiredAt)),
    /** When the current lease ends unless extended. */
    EXPIRES_AT(Comparator.comparing(LockInfo::expiresAt)),
    /** By the remaining lease each store reported, which does not depend on the stores' clocks agreeing. */
    REMAINING(Comparator.comparing(LockInfo::remaining)),
    /** The fencing token of the current hold. */
    FENCE(Comparator.comparingLong(LockInfo::fence));

    private final Comparator<LockInfo> order;

    LockColumn(Comparator<LockInfo> order) {
        this.order = order;
    }

    /** @return ascending order by this column */
    public Comparator<LockInfo> order() {
        return order;
    }
}

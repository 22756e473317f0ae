package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.util.Comparator;

/** A property of a live lock that the console shows and sorts by. */
public enum LockColumn {
    STORE(Comparator.comparing(LockInfo::store)),
    NAME(Comparator.comparing(LockInfo::name)),
    HOLDER(Comparator.comparing((LockInfo lock) -> lock.holder().instance())
            .thenComparing(lock -> lock.holder().thread())),
    PURPOSE(Comparator.comparing((LockInfo lock) -> lock.holder().purpose())),
    ACQUIRED_AT(Comparator.comparing(LockInfo::acquiredAt)),
    EXPIRES_AT(Comparator.comparing(LockInfo::expiresAt)),
    /** By the remaining lease each store reported, which does not depend on the stores' clocks agreeing. */
    REMAINING(Comparator.comparing(LockInfo::remaining)),
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

package dev.exclusive.admin;

import dev.exclusive.LockStatistics;
import java.util.Objects;
import java.util.Optional;

/**
 * One configured store at a glance, as the console's tiles show it: whether it answers, how many locks it holds, and
 * this server's activity on it over the last minute.
 *
 * @param store      the configured store's name
 * @param problem    why the store could not be listed at the last refresh; empty when it answered
 * @param liveLocks  the live locks it listed (0 when it could not be listed)
 * @param moreLocks  whether it holds more than {@code liveLocks}: the listing stopped at the console's scan limit
 * @param lastMinute this server's acquisitions, busy answers and waits on the store over the last minute (other
 *                   servers' calls are not in it)
 */
public record StoreTile(
        String store,
        Optional<String> problem,
        int liveLocks,
        boolean moreLocks,
        LockStatistics.StoreActivity lastMinute) {

    /**
     * Checks that no component is {@code null}.
     *
     * @param store      the configured store's name
     * @param problem    why the store could not be listed; empty when it answered
     * @param liveLocks  the live locks it listed
     * @param moreLocks  whether the listing stopped at the scan limit
     * @param lastMinute this server's activity on the store over the last minute
     */
    public StoreTile {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(lastMinute, "lastMinute");
    }

    /** @return whether the store answered at the last refresh */
    public boolean reachable() {
        return problem.isEmpty();
    }
}

package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The live locks a {@link LockFilter} selected at one moment, read once from the stores and paged from memory:
 * a grid that scrolls through them, sorted any way, makes no further store calls until the next refresh.
 *
 * <p>Thread-safe; sorting is cached for the last order asked for.
 */
public final class LockSnapshot {

    private final List<LockInfo> locks;
    private final List<StoreProblem> problems;
    private final Set<String> truncated;
    private final Instant readAt;
    private List<LockSort> sortedBy;
    private List<LockInfo> sorted;

    /**
     * @param locks     the live locks, in any order
     * @param problems  the stores that could not be listed; their locks are missing
     * @param truncated the stores that hold more matching locks than the console reads for one query (the scan
     *                  limit): only that many of theirs, not necessarily the first by name, are here
     * @param readAt    when the stores were read
     */
    public LockSnapshot(List<LockInfo> locks, List<StoreProblem> problems, Set<String> truncated, Instant readAt) {
        this.locks = List.copyOf(locks);
        this.problems = List.copyOf(problems);
        this.truncated = Set.copyOf(truncated);
        this.readAt = Objects.requireNonNull(readAt, "readAt");
    }

    /** @return a snapshot with no lock and no problem */
    public static LockSnapshot empty() {
        return new LockSnapshot(List.of(), List.of(), Set.of(), Instant.EPOCH);
    }

    /** @return how many live locks the snapshot holds */
    public int size() {
        return locks.size();
    }

    /** @return the stores that could not be listed */
    public List<StoreProblem> problems() {
        return problems;
    }

    /** @return the stores that hold more matching locks than were read */
    public Set<String> truncated() {
        return truncated;
    }

    /** @return when the stores were read */
    public Instant readAt() {
        return readAt;
    }

    /**
     * @param sorts  the sort keys, most significant first; empty for {@link LockSort#DEFAULT}; name and store
     *               break ties
     * @param offset how many locks to skip; not negative
     * @param limit  the most locks to return; not negative
     * @return the locks of the page, in that order
     * @throws IllegalArgumentException if {@code offset} or {@code limit} is negative
     */
    public synchronized List<LockInfo> page(List<LockSort> sorts, int offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException(
                    "offset and limit must not be negative, got offset " + offset + ", limit " + limit);
        }
        if (!sorts.equals(sortedBy)) {
            List<LockInfo> ordered = new ArrayList<>(locks);
            ordered.sort(LockSort.order(sorts));
            sorted = ordered;
            sortedBy = List.copyOf(sorts);
        }
        int from = Math.min(offset, sorted.size());
        int to = (int) Math.min((long) offset + limit, sorted.size());
        return List.copyOf(sorted.subList(from, to));
    }
}

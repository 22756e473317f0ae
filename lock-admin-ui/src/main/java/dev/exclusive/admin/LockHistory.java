package dev.exclusive.admin;

import dev.exclusive.AuditRecord;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The recent history of every store the console shows: the newest records of each store's audit trail
 * (force-releases and lost leases, from every server using the store), newest first across stores, and the stores
 * whose trail could not be read.
 *
 * @param entries  the records with their store, newest first
 * @param problems the stores whose audit trail could not be read, and why
 */
public record LockHistory(List<LockHistory.Entry> entries, List<StoreProblem> problems) {

    /**
     * One record of one store's audit trail.
     *
     * @param store  the configured store's name
     * @param record the record
     */
    public record Entry(String store, AuditRecord record) {

        /**
         * @param store  the configured store's name
         * @param record the record
         */
        public Entry {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * Sorts the entries newest first (by the record's time; a store's own order breaks ties) and copies both lists.
     *
     * @param entries  the records with their store
     * @param problems the stores whose audit trail could not be read
     */
    public LockHistory {
        entries = entries.stream()
                .sorted(Comparator.comparing((Entry entry) -> entry.record().at())
                        .reversed())
                .toList();
        problems = List.copyOf(problems);
    }

    /** @return a history with nothing in it */
    public static LockHistory empty() {
        return new LockHistory(List.of(), List.of());
    }
}

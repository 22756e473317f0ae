package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One sort key of the console's list.
 *
 * @param column     the column
 * @param descending whether it sorts from high to low
 */
public record LockSort(LockColumn column, boolean descending) {

    /** The order when nobody chose one: by name, then by store. */
    public static final List<LockSort> DEFAULT = List.of(ascending(LockColumn.NAME));

    /**
     * Checks that the column is non-{@code null}.
     *
     * @param column     the column
     * @param descending whether it sorts from high to low
     */
    public LockSort {
        Objects.requireNonNull(column, "column");
    }

    /**
     * @param column the column
     * @return the key that sorts by it from low to high
     */
    public static LockSort ascending(LockColumn column) {
        return new LockSort(column, false);
    }

    /**
     * @param column the column
     * @return the key that sorts by it from high to low
     */
    public static LockSort descending(LockColumn column) {
        return new LockSort(column, true);
    }

    /**
     * @param sorts the keys, most significant first; empty for {@link #DEFAULT}
     * @return their order, ending with name and store so that every order is total
     */
    static Comparator<LockInfo> order(List<LockSort> sorts) {
        Comparator<LockInfo> order = null;
        for (LockSort sort : sorts.isEmpty() ? DEFAULT : sorts) {
            Comparator<LockInfo> key = sort.descending ? sort.column.order().reversed() : sort.column.order();
            order = order == null ? key : order.thenComparing(key);
        }
        return order.thenComparing(LockColumn.NAME.order()).thenComparing(LockColumn.STORE.order());
    }
}

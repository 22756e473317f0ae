package dev.exclusive.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The orders in which a paired benchmark runs its subjects, one order per batch or round in turn: each subject goes
 * first, and directly follows each other subject, equally often (a Williams design), so that neither the first place
 * nor what ran just before (a cache, a connection or a server warmed by one subject's work) favours one of them. A
 * plain rotation puts each first in turn but keeps the same neighbours: one subject always right after another.
 */
public final class BalancedOrders {

    private BalancedOrders() {}

    /**
     * @param n how many subjects, numbered from 0
     * @return {@code n} orders for an even {@code n}, {@code 2n} (each also reversed) for an odd one
     */
    public static List<int[]> of(int n) {
        int[] first = new int[n];
        for (int k = 0, low = 0, high = n - 1; k < n; k++) {
            first[k] = k % 2 == 0 ? low++ : high--;
        }
        List<int[]> orders = new ArrayList<>();
        for (int shift = 0; shift < n; shift++) {
            int[] order = new int[n];
            for (int k = 0; k < n; k++) {
                order[k] = (first[k] + shift) % n;
            }
            orders.add(order);
        }
        if (n % 2 == 1) {
            for (int shift = 0; shift < n; shift++) {
                int[] reversed = new int[n];
                for (int k = 0; k < n; k++) {
                    reversed[k] = orders.get(shift)[n - 1 - k];
                }
                orders.add(reversed);
            }
        }
        return orders;
    }
}

package dev.exclusive.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each subject first, and right after each other subject, equally often; each order holds every subject once. */
class BalancedOrdersTest {

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5, 6})
    void eachSubjectLeadsAndFollowsEachOtherEquallyOften(int n) {
        List<int[]> orders = BalancedOrders.of(n);
        assertEquals(n % 2 == 0 ? n : 2 * n, orders.size());
        Map<Integer, Integer> firsts = new TreeMap<>();
        Map<String, Integer> neighbours = new TreeMap<>();
        for (int[] order : orders) {
            assertEquals(n, Arrays.stream(order).distinct().count(), "every subject once");
            firsts.merge(order[0], 1, Integer::sum);
            for (int k = 1; k < n; k++) {
                neighbours.merge(order[k - 1] + ">" + order[k], 1, Integer::sum);
            }
        }
        int times = n % 2 == 0 ? 1 : 2;
        assertEquals(n, firsts.size());
        firsts.values().forEach(count -> assertEquals(times, count, "first: " + firsts));
        assertEquals(n * (n - 1), neighbours.size(), "every ordered pair of neighbours: " + neighbours);
        neighbours.values().forEach(count -> assertEquals(times, count, "neighbours: " + neighbours));
    }
}

package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.LockStatistics.GroupContention;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The console injects the one {@link LockStatistics} the extension adds to the registry's listeners. */
class StatisticsTest {

    @ApplicationScoped
    static class Purchases {
        @Exclusive(value = "purchase:product:{productId}", onBusy = OnBusy.SKIP)
        public boolean purchase(long productId) {
            return true;
        }
    }

    /** A bean of the application's that shows the statistics, as the console's service does. */
    @ApplicationScoped
    static class Dashboard {
        private final LockStatistics statistics;

        @Inject
        Dashboard(LockStatistics statistics) {
            this.statistics = statistics;
        }

        Dashboard() {
            this(null); // for the client proxy
        }

        LockStatistics statistics() {
            return statistics;
        }
    }

    @Test
    void everyExclusiveCallIsCountedInTheInjectableStatistics() {
        try (Deployment deployment = Deployment.start(Map.of(), Purchases.class, Dashboard.class)) {
            Purchases purchases = deployment.select(Purchases.class);
            LockRegistry registry = deployment.select(LockRegistry.class);
            Lock held = registry.lock("purchase:product:1", Duration.ofSeconds(10));
            assertThat(held.get()).isTrue();

            assertThat(purchases.purchase(1)).isFalse();
            assertThat(purchases.purchase(2)).isTrue();
            assertThat(purchases.purchase(3)).isTrue();
            assertThat(held.release()).isTrue();

            LockStatistics statistics = deployment.select(Dashboard.class).statistics();
            assertThat(statistics).isSameAs(deployment.select(LockStatistics.class));
            assertThat(statistics.stores()).containsExactly("memory");
            LockStatistics.StoreActivity minute = statistics.lastMinute("memory");
            assertThat(minute.acquisitions()).isEqualTo(3);
            assertThat(minute.busy()).isEqualTo(1);
            List<GroupContention> top = statistics.mostContended(10, Duration.ofMinutes(1));
            assertThat(top).hasSize(2);
            assertThat(top.get(0).group()).isEqualTo("purchase:product:{productId}");
            assertThat(top.get(0).contended()).isEqualTo(1);
            assertThat(top.get(0).acquisitions()).isEqualTo(2);
            assertThat(top.get(1).group()).isEqualTo("purchase:*");
            assertThat(top.get(1).acquisitions()).isEqualTo(1);
            assertThat(top.get(1).p99Wait()).isNotEqualTo(Optional.empty());
        }
    }

    @Test
    void eachApplicationHasItsOwnStatistics() {
        LockStatistics first;
        try (Deployment deployment = Deployment.start(Map.of(), Purchases.class)) {
            first = deployment.select(LockStatistics.class);
            assertThat(deployment.select(Purchases.class).purchase(1)).isTrue();
        }
        try (Deployment deployment = Deployment.start(Map.of(), Purchases.class)) {
            LockStatistics second = deployment.select(LockStatistics.class);
            assertThat(second).isNotSameAs(first);
            assertThat(second.stores()).isEmpty();
        }
        assertThat(first.lastMinute("memory").acquisitions()).isEqualTo(1);
    }
}

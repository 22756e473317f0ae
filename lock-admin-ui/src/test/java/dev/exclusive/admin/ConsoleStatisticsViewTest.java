package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.vaadin.flow.component.UI;
import com.vaadin.flow.server.VaadinSession;
import dev.exclusive.Lock;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.internal.ConsoleAccess;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.admin.internal.ConsoleUpdates;
import dev.exclusive.memory.MemoryLockStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tiles, the charts and the detail's waiters in the view, without a browser, on real memory stores. */
class ConsoleStatisticsViewTest {

    private final LockStatistics statistics = new LockStatistics();
    private final AtomicLong clock = new AtomicLong();
    private LockRegistry registry;
    private LockConsoleView view;

    @BeforeEach
    void start() {
        registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .store("shared", new MemoryLockStore())
                .listener(statistics)
                .build();
        view = new LockConsoleView(
                new LockConsoleService(
                        registry,
                        statistics,
                        ConsoleSettings.DEFAULTS,
                        TestCaller.user("admin", "exclusive-admin"),
                        () -> 0L,
                        clock::get),
                ConsoleSettings.DEFAULTS,
                new ConsoleUpdates(Executors.defaultThreadFactory()));
        ReentrantLock sessionLock = new ReentrantLock();
        sessionLock.lock();
        VaadinSession session = new VaadinSession(null) {
            @Override
            public java.util.concurrent.locks.Lock getLockInstance() {
                return sessionLock;
            }
        };
        UI ui = new UI();
        ui.getInternals().setSession(session);
        UI.setCurrent(ui);
        ui.add(view);
    }

    @AfterEach
    void close() {
        UI.setCurrent(null);
        registry.close();
    }

    private Lock take(String store, String name) {
        Lock lock = registry.store(store).lock(name, Duration.ofMinutes(1));
        assertThat(lock.get()).isTrue();
        return lock;
    }

    @Test
    void aTilePerStoreShowsItsLiveLocksAndThisServersRatesAboveTheGrid() {
        take("shared", "purchase:product:1");
        take("shared", "purchase:product:2");
        for (int i = 0; i < 6; i++) {
            assertThat(registry.store("shared")
                            .lock("purchase:product:1", Duration.ofMinutes(1))
                            .get())
                    .isFalse();
        }

        view.enter(ConsoleAccess.ALLOWED, "admin");

        assertThat(view.getChildren().toList())
                .as("the tiles come before the grid")
                .containsSubsequence(view.tiles(), view.grid(), view.activity(), view.history());
        assertThat(view.tiles().texts().keySet()).containsExactly("local", "shared");
        assertThat(view.tiles().texts().get("shared"))
                .containsEntry("state", "● reachable")
                .containsEntry("live locks", "2")
                .containsEntry("acquired", "0.03/s")
                .containsEntry("busy", "0.1/s");
        assertThat(view.tiles().texts().get("shared").get("p99 wait"))
                .startsWith("≤ ")
                .endsWith(" ms");
        assertThat(view.tiles().texts().get("local"))
                .containsEntry("live locks", "0")
                .containsEntry("acquired", "0/s")
                .containsEntry("p99 wait", "—");
    }

    @Test
    void anUnreachableStoresTileSaysWhyAndShowsNoLockCount() {
        StoreTiles tiles = new StoreTiles();
        LockStatistics.StoreActivity none =
                new LockStatistics.StoreActivity("shared", 0, 0, 0, 2, 0, 0, Optional.empty());

        tiles.show(List.of(
                new StoreTile("shared", Optional.of("Connection refused <redis://10.0.0.9:6379>"), 0, false, none)));

        assertThat(tiles.texts().get("shared"))
                .containsEntry("state", "● unreachable")
                .containsEntry("problem", "Connection refused <redis://10.0.0.9:6379>")
                .containsEntry("live locks", "—")
                .containsEntry("p99 wait", "—");
        tiles.show(List.of(new StoreTile("shared", Optional.empty(), 10_000, true, none)));
        assertThat(tiles.texts().get("shared"))
                .containsEntry("state", "● reachable")
                .containsEntry("problem", "")
                .containsEntry("live locks", "10,000+");
    }

    @Test
    void theTilesFollowTheNextRefreshInterval() {
        view.enter(ConsoleAccess.ALLOWED, "admin");
        assertThat(view.tiles().texts().get("local")).containsEntry("live locks", "0");

        take("local", "reports:daily");
        clock.addAndGet(ConsoleSettings.DEFAULTS.refresh().toNanos());
        view.refresh();

        assertThat(view.tiles().texts().get("local")).containsEntry("live locks", "1");
    }

    @Test
    void theChartsAreSvgWithTheirTitlesAndTheMostContendedTemplatesAreListed() {
        take("shared", "purchase:product:1");
        assertThat(registry.store("shared")
                        .lock("purchase:product:1", Duration.ofMinutes(1))
                        .get())
                .isFalse();

        view.enter(ConsoleAccess.ALLOWED, "admin");

        for (ActivityPanel.Chart chart : ActivityPanel.Chart.values()) {
            assertThat(view.activity().shownSvg(chart))
                    .startsWith("<svg ")
                    .endsWith("</svg>")
                    .contains(">" + chart.title + " <tspan")
                    .contains("viewBox=");
        }
        assertThat(view.activity().shownContended()).singleElement().satisfies(group -> {
            assertThat(group.group()).isEqualTo("purchase:*");
            assertThat(group.store()).isEqualTo("shared");
            assertThat(group.contended()).isEqualTo(1);
        });
    }

    @Test
    void theChartsAreDrawnAgainOnlyWhenTheActivityChanged() {
        view.enter(ConsoleAccess.ALLOWED, "admin");
        String drawn = view.activity().shownSvg(ActivityPanel.Chart.ACQUISITIONS);
        ConsoleActivity same = new ConsoleActivity(
                view.activity().shown().from(),
                view.activity().shown().to(),
                view.activity().shown().bucket(),
                view.activity().shown().buckets(),
                view.activity().shown().mostContended());

        view.activity().show(same, java.time.ZoneOffset.UTC);
        String inUtc = view.activity().shownSvg(ActivityPanel.Chart.ACQUISITIONS);
        view.activity().show(same, java.time.ZoneOffset.UTC);

        assertThat(view.activity().shownSvg(ActivityPanel.Chart.ACQUISITIONS)).isSameAs(inUtc);
        assertThat(drawn).isNotNull();
    }

    @Test
    void theDetailSaysThatNoCallerOfThisServerIsWaiting() {
        take("local", "imports:users");
        view.enter(ConsoleAccess.ALLOWED, "admin");
        LockInfo lock = view.snapshot().page(LockSort.DEFAULT, 0, 1).get(0);

        LockDetail detail = view.openDetail(lock);

        assertThat(detail.fields()).containsEntry(LockDetail.WAITED_ON, "no caller of this server is waiting");
    }

    @Test
    void theWaitedOnLineCountsTheCallersAndTheLongestWait() {
        assertThat(LockDetail.waitedOn(Optional.of(new LockStatistics.Waiting(1, Duration.ofMillis(4_200)))))
                .isEqualTo("1 caller of this server is waiting for it, for 4 s so far");
        assertThat(LockDetail.waitedOn(Optional.of(new LockStatistics.Waiting(3, Duration.ofSeconds(75)))))
                .isEqualTo("3 callers of this server are waiting for it, the longest for 1 min 15 s so far");
        assertThat(LockDetail.waitedOn(Optional.of(new LockStatistics.Waiting(2, Duration.ofMillis(300)))))
                .isEqualTo("2 callers of this server are waiting for it, the longest for < 1 s so far");
    }

    @Test
    void anOpenDetailShowsACallerThatStartedWaitingAfterItOpened() throws Exception {
        Lock held = take("local", "imports:users");
        view.enter(ConsoleAccess.ALLOWED, "admin");
        LockDetail detail =
                view.openDetail(view.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));
        assertThat(detail.fields().get(LockDetail.WAITED_ON)).startsWith("no caller");

        java.util.concurrent.CompletableFuture<Boolean> waiter =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> registry.store("local")
                        .lock("imports:users", Duration.ofMinutes(1))
                        .block(Duration.ofSeconds(30)));
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (detail.fields().get(LockDetail.WAITED_ON).startsWith("no caller") && System.nanoTime() < deadline) {
                view.refresh();
                Thread.onSpinWait();
            }

            assertThat(detail.fields().get(LockDetail.WAITED_ON))
                    .startsWith("1 caller of this server is waiting for it, for ");
        } finally {
            held.release();
            assertThat(waiter.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void tilesAndChartsShowNothingToARefusedUser() {
        view.enter(ConsoleAccess.REFUSED, "operator");

        assertThat(view.getChildren().toList()).doesNotContain(view.tiles(), view.activity());
        assertThat(view.tiles().shown()).isEqualTo(List.of());
    }
}

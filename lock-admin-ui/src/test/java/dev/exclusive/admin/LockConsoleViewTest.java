package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.vaadin.flow.component.Component;
import com.vaadin.flow.component.HasText;
import com.vaadin.flow.component.UI;
import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.confirmdialog.ConfirmDialog;
import com.vaadin.flow.component.notification.Notification;
import com.vaadin.flow.data.provider.Query;
import com.vaadin.flow.data.provider.QuerySortOrder;
import com.vaadin.flow.data.provider.SortDirection;
import com.vaadin.flow.server.VaadinSession;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.internal.ConsoleAccess;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.admin.internal.ConsoleUpdates;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The view's logic without a browser: access, the grid's data source, banners, empty state. */
class LockConsoleViewTest {

    @TempDir
    Path folder;

    private CountingStore local;
    private Path lockFolder;
    private LockRegistry registry;
    private LockConsoleView view;

    @BeforeEach
    void startStores() throws IOException {
        local = new CountingStore(new MemoryLockStore());
        lockFolder = Files.createDirectories(folder.resolve("locks"));
        registry = LockRegistry.builder()
                .store("local", local)
                .store("files", new FileLockStore(lockFolder))
                .build();
        view = viewFor(TestCaller.user("admin", "exclusive-admin"));
    }

    /** The service's monotonic clock: a refresh re-reads the stores once the refresh interval has passed on it. */
    private final AtomicLong clock = new AtomicLong();

    private LockConsoleView viewFor(TestCaller caller) {
        return new LockConsoleView(
                new LockConsoleService(
                        registry, new LockStatistics(), ConsoleSettings.DEFAULTS, caller, () -> 0L, clock::get),
                ConsoleSettings.DEFAULTS,
                new ConsoleUpdates(Executors.defaultThreadFactory()));
    }

    @AfterEach
    void closeStores() {
        UI.setCurrent(null);
        registry.close();
    }

    /** A UI for the view, as Vaadin has while it handles a request: current, in a session this thread holds. */
    private static UI currentUi(Component view) {
        ReentrantLock lock = new ReentrantLock();
        lock.lock();
        VaadinSession session = new VaadinSession(null) {
            @Override
            public Lock getLockInstance() {
                return lock;
            }
        };
        UI ui = new UI();
        ui.getInternals().setSession(session);
        UI.setCurrent(ui);
        ui.add(view);
        return ui;
    }

    /** @return the notifications open in {@code ui}, once Vaadin would have sent them */
    private static List<Notification> notifications(UI ui) {
        ui.getInternals().getStateTree().runExecutionsBeforeClientResponse();
        return ui.getChildren()
                .filter(Notification.class::isInstance)
                .map(Notification.class::cast)
                .filter(Notification::isOpened)
                .toList();
    }

    private static Query<LockInfo, Void> query(int offset, int limit, QuerySortOrder... orders) {
        return new Query<>(offset, limit, List.of(orders), null, null);
    }

    private static List<String> texts(Component root) {
        return textsIn(root).toList();
    }

    private static Stream<String> textsIn(Component component) {
        String text = component instanceof HasText hasText
                ? hasText.getText()
                // a notification opened with a text keeps it in the web component's property
                : component instanceof Notification ? component.getElement().getProperty("text", "") : "";
        Stream<String> own = text.isEmpty() ? Stream.empty() : Stream.of(text);
        return Stream.concat(own, component.getChildren().flatMap(LockConsoleViewTest::textsIn));
    }

    @Test
    void everyColumnIsSizedInPixelsSoThatItsHeaderCellIsAsWideAsItsBodyCells() {
        view.enter(ConsoleAccess.ALLOWED, "admin");

        assertThat(view.grid().getColumns())
                .hasSize(9)
                .allSatisfy(column ->
                        assertThat(column.getWidth()).as(column.getKey()).matches("\\d+px"));
        assertThat(view.grid().getColumnByKey("actions").isFrozenToEnd())
                .as("the force-release button stays on screen")
                .isTrue();
    }

    @Test
    void longNamesPurposesAndFencesShowInFullInATooltip() {
        String name = "imports:users:tenant-0123456789abcdef:region-eu-central-1";
        String purpose = "NightlyCustomerRecordsReconciliation#reconcileEveryTenantAndRegion";
        assertThat(registry.store("local")
                        .lock(name, Duration.ofMinutes(1))
                        .purpose(purpose)
                        .get())
                .isTrue();
        view.enter(ConsoleAccess.ALLOWED, "admin");
        LockInfo lock = view.fetch(query(0, 1)).findFirst().orElseThrow();

        assertThat(view.grid().getColumnByKey("name").getTooltipGenerator().apply(lock))
                .isEqualTo(name);
        assertThat(view.grid().getColumnByKey("purpose").getTooltipGenerator().apply(lock))
                .isEqualTo(purpose);
        assertThat(view.grid().getColumnByKey("fence").getTooltipGenerator().apply(lock))
                .isEqualTo("Fence " + lock.fence());
    }

    /** A name that reverses its own text is shown with the control visible, in the grid and in its tooltip. */
    @Test
    void aNameWithABidirectionalOverrideCannotPassForAnotherLock() {
        assertThat(registry.store("local")
                        .lock("imports:\u202Esresu", Duration.ofMinutes(1))
                        .get())
                .isTrue();
        view.enter(ConsoleAccess.ALLOWED, "admin");
        LockInfo lock = view.fetch(query(0, 1)).findFirst().orElseThrow();

        assertThat(view.grid().getColumnByKey("name").getTooltipGenerator().apply(lock))
                .isEqualTo("imports:[U+202E]sresu");
    }

    @Test
    void anAdminSeesTheLiveLocksPageByPage() {
        for (int i = 0; i < 75; i++) {
            assertThat(registry.store("local")
                            .lock(String.format("job:%02d", i), Duration.ofMinutes(1))
                            .get())
                    .isTrue();
        }
        view.enter(ConsoleAccess.ALLOWED, "admin");

        List<LockInfo> first = view.fetch(query(0, 50)).toList();
        List<LockInfo> second = view.fetch(query(50, 50)).toList();

        assertThat(first).hasSize(50).first().extracting(LockInfo::name).isEqualTo("job:00");
        assertThat(second).hasSize(25).last().extracting(LockInfo::name).isEqualTo("job:74");
        assertThat(view.grid().getDataProvider().size(new Query<>())).isEqualTo(75);
        assertThat(local.lists())
                .as("pages come from the snapshot read on entering")
                .isEqualTo(1);
    }

    @Test
    void theGridsSortOrdersBecomeTheServicesSortKeys() {
        List<LockSort> sorts = LockConsoleView.sorts(List.of(
                new QuerySortOrder(LockColumn.REMAINING.name(), SortDirection.DESCENDING),
                new QuerySortOrder("unknown", SortDirection.ASCENDING),
                new QuerySortOrder(LockColumn.STORE.name(), SortDirection.ASCENDING)));

        assertThat(sorts)
                .containsExactly(LockSort.descending(LockColumn.REMAINING), LockSort.ascending(LockColumn.STORE));
    }

    @Test
    void sortingTheGridSortsTheRows() {
        registry.store("local").lock("soon", Duration.ofSeconds(30)).get();
        registry.store("local").lock("later", Duration.ofMinutes(30)).get();
        view.enter(ConsoleAccess.ALLOWED, "admin");

        List<String> byRemaining = view.fetch(
                        query(0, 10, new QuerySortOrder(LockColumn.REMAINING.name(), SortDirection.DESCENDING)))
                .map(LockInfo::name)
                .toList();

        assertThat(byRemaining).containsExactly("later", "soon");
    }

    @Test
    void refreshingShowsNewLocksAndDropsReleasedOnes() {
        var first = registry.store("local").lock("first", Duration.ofMinutes(1));
        first.get();
        view.enter(ConsoleAccess.ALLOWED, "admin");
        first.release();
        registry.store("files").lock("second", Duration.ofMinutes(1)).get();
        clock.addAndGet(ConsoleSettings.DEFAULTS.refresh().toNanos());

        view.refresh();

        assertThat(view.fetch(query(0, 10)).map(LockInfo::name)).containsExactly("second");
    }

    @Test
    void theEmptyStateSaysThatNoLockIsHeld() {
        view.enter(ConsoleAccess.ALLOWED, "admin");

        assertThat(view.fetch(query(0, 50))).isEmpty();
        assertThat(view.grid().getEmptyStateText()).isEqualTo("No lock is held right now.");
    }

    @Test
    void aStoreThatCannotBeListedShowsAsABannerAndTheOthersStillList() throws IOException {
        registry.store("local").lock("still-here", Duration.ofMinutes(1)).get();
        Files.delete(lockFolder);

        view.enter(ConsoleAccess.ALLOWED, "admin");

        assertThat(view.banners())
                .singleElement()
                .asString()
                .startsWith("Store 'files' cannot be listed: ")
                .endsWith("Its locks are missing below; the other stores are listed.");
        assertThat(view.fetch(query(0, 10)).map(LockInfo::name)).containsExactly("still-here");
    }

    @Test
    void aUserWithoutTheRoleIsRefusedWithAPageThatSaysWhy() {
        registry.store("local").lock("secret", Duration.ofMinutes(1)).get();

        view.enter(ConsoleAccess.REFUSED, "operator");

        assertThat(texts(view))
                .contains("Access denied")
                .anySatisfy(text ->
                        assertThat(text).contains("signed in as 'operator'").contains("role 'exclusive-admin'"));
        assertThat(view.grid().getParent()).isEmpty();
        assertThat(local.lists()).as("nothing is read for a refused user").isZero();
    }

    @Test
    void aVisitorWhoIsNotSignedInIsAskedToSignIn() {
        view.enter(ConsoleAccess.LOGIN_REQUIRED, "");

        assertThat(texts(view)).contains("Sign in required");
        assertThat(view.grid().getParent()).isEmpty();
    }

    @Test
    void aForceReleaseAfterTheLoginLapsedPromptsToSignInAgainAndReleasesNothing() {
        dev.exclusive.Lock held = registry.store("local").lock("stuck", Duration.ofMinutes(5));
        assertThat(held.get()).isTrue();
        LockConsoleView lapsed = viewFor(TestCaller.nobody());
        UI ui = currentUi(lapsed);
        lapsed.enter(ConsoleAccess.ALLOWED, "admin");

        lapsed.forceRelease(lapsed.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));

        assertThat(held.isLocked()).isTrue();
        assertThat(notifications(ui)).singleElement().satisfies(prompt -> {
            assertThat(prompt.getId()).contains("exclusive-console-sign-in");
            assertThat(texts(prompt)).anySatisfy(text -> assertThat(text).contains("sign-in has lapsed"));
            assertThat(prompt.getDuration()).as("stays until answered").isZero();
        });
        assertThat(ui.getChildren()
                        .flatMap(LockConsoleViewTest::descendants)
                        .filter(Button.class::isInstance)
                        .map(button -> ((Button) button).getText()))
                .contains("Sign in again");
    }

    @Test
    void aUserWhoLostTheRoleIsToldAndSeesTheRefusalPage() {
        dev.exclusive.Lock held = registry.store("local").lock("stuck", Duration.ofMinutes(5));
        assertThat(held.get()).isTrue();
        LockConsoleView demoted = viewFor(TestCaller.user("admin", "viewer"));
        UI ui = currentUi(demoted);
        demoted.enter(ConsoleAccess.ALLOWED, "admin");

        demoted.forceRelease(demoted.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));

        assertThat(held.isLocked()).isTrue();
        assertThat(notifications(ui))
                .singleElement()
                .satisfies(notice -> assertThat(texts(notice))
                        .anySatisfy(text -> assertThat(text).contains("no longer in role 'exclusive-admin'")));
        assertThat(texts(demoted)).contains("Access denied");
        assertThat(demoted.grid().getParent()).isEmpty();
    }

    @Test
    void anAdminForceReleasesFromTheView() {
        dev.exclusive.Lock held = registry.store("local").lock("stuck", Duration.ofMinutes(5));
        assertThat(held.get()).isTrue();
        UI ui = currentUi(view);
        view.enter(ConsoleAccess.ALLOWED, "admin");

        view.forceRelease(view.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));

        assertThat(held.isLocked()).isFalse();
        assertThat(view.snapshot().size()).isZero();
        assertThat(notifications(ui))
                .singleElement()
                .satisfies(notice -> assertThat(texts(notice)).contains("Released 'stuck' in store 'local'."));
    }

    @Test
    void clickingARowOpensItsDetailWithTheFullHolderFenceTimesAndName() {
        String purpose = "NightlyCustomerRecordsReconciliation#reconcileEveryTenantAndRegion";
        assertThat(registry.store("local")
                        .lock("imports:users:tenant-0123456789abcdef", Duration.ofMinutes(1))
                        .purpose(purpose)
                        .get())
                .isTrue();
        currentUi(view);
        view.enter(ConsoleAccess.ALLOWED, "admin");
        LockInfo lock = view.fetch(query(0, 1)).findFirst().orElseThrow();

        LockDetail detail = view.openDetail(lock);

        assertThat(detail.isOpened()).isTrue();
        assertThat(detail.fields())
                .containsEntry("Store", "local")
                .containsEntry("Name", "imports:users:tenant-0123456789abcdef")
                .containsEntry("Instance", lock.holder().instance())
                .containsEntry("Thread", Thread.currentThread().getName())
                .containsEntry("Purpose", purpose)
                .containsEntry("Fence", Long.toString(lock.fence()))
                .containsEntry("Owner id", lock.owner());
        assertThat(detail.fields().get("Acquired at"))
                .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\(.+ ago\\)");
        assertThat(detail.fields().get("Expires at")).matches(".+ \\(in (59|1 min 00) s when listed\\)");
        assertThat(texts(detail)).containsAll(detail.fields().values());
    }

    @Test
    void theDetailsForceReleaseAsksForConfirmationFirst() {
        dev.exclusive.Lock held = registry.store("local").lock("stuck", Duration.ofMinutes(5));
        assertThat(held.get()).isTrue();
        UI ui = currentUi(view);
        view.enter(ConsoleAccess.ALLOWED, "admin");

        LockDetail detail =
                view.openDetail(view.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));
        assertThat(detail.buttons()).extracting(Button::getText).containsExactly("Force release…", "Close");
        detail.buttons().get(0).click();

        assertThat(detail.isOpened()).isFalse();
        assertThat(held.isLocked())
                .as("nothing is released before the confirmation")
                .isTrue();
        ui.getInternals().getStateTree().runExecutionsBeforeClientResponse();
        assertThat(ui.getChildren().filter(ConfirmDialog.class::isInstance).map(ConfirmDialog.class::cast))
                .singleElement()
                .satisfies(confirm -> assertThat(confirm.isOpened()).isTrue());
    }

    @Test
    void aViewerWhoMayNotForceReleaseSeesTheDetailWithoutTheButton() {
        registry.store("local").lock("watched", Duration.ofMinutes(5)).get();
        LockConsoleView viewer = viewFor(TestCaller.user("viewer", "viewer"));
        currentUi(viewer);
        viewer.enter(ConsoleAccess.ALLOWED, "viewer");

        LockDetail detail =
                viewer.openDetail(viewer.snapshot().page(LockSort.DEFAULT, 0, 1).get(0));

        assertThat(detail.fields()).containsEntry("Name", "watched");
        assertThat(detail.buttons())
                .singleElement()
                .satisfies(close -> assertThat(close.getText()).isEqualTo("Close"));
    }

    @Test
    void theDetailShowsMarkupInNamesAndPurposesAsTyped() {
        String name = "<img src=x onerror=alert(1)> & \"quoted\" 'too'";
        String purpose = "<b>Bean</b>#run&amp;";
        assertThat(registry.store("local")
                        .lock(name, Duration.ofMinutes(1))
                        .purpose(purpose)
                        .get())
                .isTrue();
        currentUi(view);
        view.enter(ConsoleAccess.ALLOWED, "admin");

        LockDetail detail = view.openDetail(view.fetch(query(0, 1)).findFirst().orElseThrow());

        assertThat(texts(detail)).contains(name, purpose);
        assertThat(descendants(detail))
                .as("no value is set as HTML")
                .allSatisfy(component -> assertThat(component.getElement().hasProperty("innerHTML"))
                        .isFalse())
                .noneSatisfy(
                        component -> assertThat(component.getElement().getTag()).isIn("img", "b"));
    }

    @Test
    void onlyARowThatChangedSinceTheLastRefreshIsHighlighted() {
        registry.store("local").lock("steady", Duration.ofMinutes(5)).get();
        currentUi(view);
        view.enter(ConsoleAccess.ALLOWED, "admin");
        registry.store("local").lock("arrived", Duration.ofMinutes(5)).get();
        clock.addAndGet(ConsoleSettings.DEFAULTS.refresh().toNanos());

        view.refresh();

        var parts = view.grid().getPartNameGenerator();
        assertThat(view.fetch(query(0, 10))
                        .collect(java.util.stream.Collectors.toMap(
                                LockInfo::name, lock -> String.valueOf(parts.apply(lock)))))
                .containsEntry("arrived", LockConsoleView.CHANGED_PART)
                .containsEntry("steady", "null");
    }

    private static Stream<Component> descendants(Component component) {
        return Stream.concat(Stream.of(component), component.getChildren().flatMap(LockConsoleViewTest::descendants));
    }
}

package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.vaadin.flow.component.Component;
import com.vaadin.flow.component.HasText;
import com.vaadin.flow.data.provider.Query;
import com.vaadin.flow.data.provider.QuerySortOrder;
import com.vaadin.flow.data.provider.SortDirection;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
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
        view = new LockConsoleView(
                new LockConsoleService(registry, ConsoleSettings.DEFAULTS, TestCaller.user("admin", "exclusive-admin")),
                ConsoleSettings.DEFAULTS,
                new ConsoleUpdates());
    }

    @AfterEach
    void closeStores() {
        registry.close();
    }

    private static Query<LockInfo, Void> query(int offset, int limit, QuerySortOrder... orders) {
        return new Query<>(offset, limit, List.of(orders), null, null);
    }

    private static List<String> texts(Component root) {
        return textsIn(root).toList();
    }

    private static Stream<String> textsIn(Component component) {
        Stream<String> own =
                component instanceof HasText text && !text.getText().isEmpty()
                        ? Stream.of(text.getText())
                        : Stream.empty();
        return Stream.concat(own, component.getChildren().flatMap(LockConsoleViewTest::textsIn));
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
}

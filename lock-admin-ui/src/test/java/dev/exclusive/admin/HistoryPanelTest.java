package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.AuditRecord;
import dev.exclusive.Lock;
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
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's History without a browser: what it lists, who it names, how often it reads the stores. */
class HistoryPanelTest {

    @TempDir
    Path folder;

    private Path lockFolder;
    private CountingStore files;
    private CountingStore local;
    private LockRegistry registry;
    private LockConsoleService service;
    private final AtomicLong clock = new AtomicLong();

    @BeforeEach
    void startStores() throws IOException {
        lockFolder = Files.createDirectories(folder.resolve("locks"));
        files = new CountingStore(new FileLockStore(lockFolder));
        local = new CountingStore(new MemoryLockStore());
        registry = LockRegistry.builder()
                .store("files", files)
                .store("local", local)
                .instanceName("node-1")
                .build();
        service = new LockConsoleService(
                registry,
                new LockStatistics(),
                ConsoleSettings.DEFAULTS,
                TestCaller.user("alice", "exclusive-admin"),
                () -> 0L,
                clock::get);
    }

    @AfterEach
    void closeStores() {
        registry.close();
    }

    private LockConsoleView openView() {
        LockConsoleView view = new LockConsoleView(
                service, ConsoleSettings.DEFAULTS, new ConsoleUpdates(Executors.defaultThreadFactory()));
        view.enter(ConsoleAccess.ALLOWED, "alice");
        return view;
    }

    @Test
    void aForceReleaseFromTheConsoleShowsWhoFreedWhichHold() {
        Lock held = registry.store("files")
                .lock("imports:users", Duration.ofMinutes(5))
                .purpose("Imports#run");
        assertThat(held.get()).isTrue();
        LockConsoleView view = openView();
        LockInfo listed = view.fetch(new com.vaadin.flow.data.provider.Query<>())
                .findFirst()
                .orElseThrow();

        assertThat(service.forceRelease(listed)).isEqualTo(ForceReleaseOutcome.RELEASED);
        view.refresh();

        HistoryPanel history = view.history();
        assertThat(history.rows()).hasSize(1);
        LockHistory.Entry row = history.rows().get(0);
        assertThat(row.store()).isEqualTo("files");
        assertThat(row.record().kind()).isEqualTo(AuditRecord.Kind.FORCE_RELEASED);
        assertThat(row.record().actor())
                .as("the signed-in user, as the container knows them")
                .isEqualTo("alice");
        assertThat(HistoryPanel.hold(row.record()))
                .isEqualTo(held.fence().getAsLong() + " · node-1 · "
                        + Thread.currentThread().getName() + " · Imports#run");
        assertThat(history.grid().getColumnByKey("detail").getTooltipGenerator().apply(row))
                .startsWith("released");
        assertThat(history.grid().getColumns())
                .allSatisfy(column ->
                        assertThat(column.getWidth()).as(column.getKey()).matches("\\d+px"));
    }

    @Test
    void anotherServersForceReleaseShowsAtTheNextRefreshInterval() {
        LockConsoleView view = openView();
        assertThat(view.history().rows()).isEmpty();

        try (LockRegistry otherServer = LockRegistry.builder()
                .store("files", new FileLockStore(lockFolder))
                .instanceName("node-2")
                .build()) {
            assertThat(otherServer.lock("reports:daily", Duration.ofMinutes(1)).get())
                    .isTrue();
            assertThat(otherServer.forceRelease("reports:daily", "bob")).isTrue();
        }
        view.refresh();
        assertThat(view.history().rows())
                .as("read at most once per refresh interval")
                .isEmpty();

        clock.addAndGet(ConsoleSettings.DEFAULTS.refresh().toNanos());
        view.refresh();
        assertThat(view.history().rows()).singleElement().satisfies(row -> {
            assertThat(row.record().lockName()).isEqualTo("reports:daily");
            assertThat(row.record().actor()).isEqualTo("bob");
            assertThat(row.record().holder().instance()).isEqualTo("node-2");
        });
    }

    @Test
    void everyOpenConsoleSharesOneReadOfEachStoresTrailPerInterval() {
        LockConsoleView first = openView();
        LockConsoleView second = openView();
        first.refresh();
        second.refresh();

        assertThat(files.auditReads()).isEqualTo(1);
        assertThat(local.auditReads()).isEqualTo(1);
    }

    @Test
    void aStoreWhoseTrailCannotBeReadIsNamedAndTheOthersStillShow() {
        files.auditTrailFails = true;
        assertThat(registry.store("local").lock("x", Duration.ofMinutes(1)).get())
                .isTrue();
        assertThat(registry.store("local").forceRelease("x", "carol")).isTrue();

        LockConsoleView view = openView();

        assertThat(view.history().problemText())
                .contains("Store 'files'")
                .contains("injected: the audit trail is down");
        assertThat(view.history().rows())
                .singleElement()
                .extracting(row -> row.record().actor())
                .isEqualTo("carol");
    }

    @Test
    void aForceReleaseOfAFreeLockShowsNoHold() {
        AuditRecord free = new AuditRecord(
                java.time.Instant.now(), AuditRecord.Kind.FORCE_RELEASED, "free", "", 0, null, "ops", "nothing");
        assertThat(HistoryPanel.hold(free)).isEqualTo("—");
        assertThat(HistoryPanel.kind(AuditRecord.Kind.LEASE_LOST)).isEqualTo("Lease lost");
    }
}

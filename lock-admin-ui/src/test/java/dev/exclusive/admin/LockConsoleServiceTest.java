package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.Lock;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockConsoleServiceTest {

    @TempDir
    Path folder;

    private Path lockFolder;
    private LockRegistry registry;
    private LockConsoleService service;
    private final LockStatistics statistics = new LockStatistics();

    @BeforeEach
    void startStores() throws IOException {
        lockFolder = Files.createDirectories(folder.resolve("locks"));
        registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .store("files", new FileLockStore(lockFolder), "app:")
                .instanceName("node-1")
                .listener(statistics)
                .build();
        service = new LockConsoleService(registry, statistics, ConsoleSettings.DEFAULTS, ADMIN);
    }

    private static final TestCaller ADMIN = TestCaller.user("admin", "exclusive-admin");

    private static ConsoleSettings scanLimit(int scanLimit) {
        ConsoleSettings defaults = ConsoleSettings.DEFAULTS;
        return new ConsoleSettings(defaults.route(), defaults.role(), defaults.refresh(), scanLimit);
    }

    private static ConsoleSettings role(String role) {
        ConsoleSettings defaults = ConsoleSettings.DEFAULTS;
        return new ConsoleSettings(defaults.route(), role, defaults.refresh(), defaults.scanLimit());
    }

    @AfterEach
    void closeStores() {
        registry.close();
    }

    private Lock take(String store, String name, Duration ttl) {
        Lock lock = registry.store(store).lock(name, ttl);
        assertThat(lock.get()).as("acquire %s in %s", name, store).isTrue();
        return lock;
    }

    /**
     * Deletes the file store's folder, its files first, again while it is not empty: the store's background cleanup,
     * which the first acquisition starts, may still be working in it (under load, CI once found a file there between
     * the deletion of the files and that of the folder).
     */
    private void deleteLockFolder() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Stream<Path> files = Files.list(lockFolder)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            try {
                Files.delete(lockFolder);
                return;
            } catch (DirectoryNotEmptyException stillWorkedIn) {
                if (System.nanoTime() - deadline > 0) {
                    throw stillWorkedIn;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    private static List<String> names(List<LockInfo> locks) {
        return locks.stream().map(lock -> lock.store() + "/" + lock.name()).toList();
    }

    @Test
    void readsTheLiveLocksOfEveryStoreWithTheirHolders() {
        Lock held = registry.store("local")
                .lock("reports:daily", Duration.ofMinutes(1))
                .purpose("Reports#rebuild");
        assertThat(held.get()).isTrue();
        take("files", "imports:users", Duration.ofMinutes(1));

        LockSnapshot snapshot = service.read(LockFilter.all());

        assertThat(names(snapshot.page(LockSort.DEFAULT, 0, 50)))
                .containsExactly("files/app:imports:users", "local/reports:daily");
        LockInfo report = snapshot.page(LockSort.DEFAULT, 1, 1).get(0);
        assertThat(report.holder().instance()).isEqualTo("node-1");
        assertThat(report.holder().thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(report.holder().purpose()).isEqualTo("Reports#rebuild");
        assertThat(report.fence()).isEqualTo(held.fence().getAsLong());
        assertThat(report.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
        assertThat(snapshot.problems()).isEmpty();
    }

    @Test
    void pagesCoverEveryLockOnceInNameThenStoreOrder() {
        for (int i = 0; i < 60; i++) {
            take("local", String.format("job:%03d", i), Duration.ofMinutes(1));
            take("files", String.format("job:%03d", i), Duration.ofMinutes(1));
        }
        LockSnapshot snapshot = service.read(LockFilter.all());

        List<LockInfo> paged = new ArrayList<>();
        for (int offset = 0; offset < snapshot.size(); offset += 50) {
            paged.addAll(snapshot.page(LockSort.DEFAULT, offset, 50));
        }

        assertThat(snapshot.size()).isEqualTo(120);
        assertThat(paged)
                .hasSize(120)
                .doesNotHaveDuplicates()
                .isSortedAccordingTo(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::store));
        assertThat(snapshot.page(LockSort.DEFAULT, 120, 50)).isEmpty();
    }

    @Test
    void sortsByAnyColumnEitherWay() {
        take("local", "short", Duration.ofSeconds(20));
        take("local", "long", Duration.ofMinutes(20));
        take("files", "middle", Duration.ofMinutes(2));
        LockSnapshot snapshot = service.read(LockFilter.all());

        assertThat(names(snapshot.page(List.of(LockSort.descending(LockColumn.REMAINING)), 0, 10)))
                .containsExactly("local/long", "files/app:middle", "local/short");
        assertThat(names(snapshot.page(List.of(LockSort.ascending(LockColumn.EXPIRES_AT)), 0, 10)))
                .containsExactly("local/short", "files/app:middle", "local/long");
        assertThat(names(snapshot.page(List.of(LockSort.ascending(LockColumn.STORE)), 0, 10)))
                .containsExactly("files/app:middle", "local/long", "local/short");
        assertThat(names(snapshot.page(List.of(LockSort.descending(LockColumn.NAME)), 0, 2)))
                .containsExactly("local/short", "local/long");
    }

    @Test
    void aPrefixFilterGoesToTheStoresAndContainsIgnoresCase() {
        take("local", "orders:17", Duration.ofMinutes(1));
        take("local", "reports:orders", Duration.ofMinutes(1));
        take("files", "orders:18", Duration.ofMinutes(1));

        LockSnapshot prefix = service.read(new LockFilter("orders:", LockFilter.NameMatch.PREFIX, Set.of()));
        LockSnapshot contains = service.read(new LockFilter("ORDERS", LockFilter.NameMatch.CONTAINS, Set.of()));

        assertThat(names(prefix.page(LockSort.DEFAULT, 0, 10)))
                .as("the prefix is matched after each store's own prefix")
                .containsExactly("files/app:orders:18", "local/orders:17");
        assertThat(names(contains.page(LockSort.DEFAULT, 0, 10)))
                .containsExactly("files/app:orders:18", "local/orders:17", "local/reports:orders");
    }

    @Test
    void aStoreFilterListsOnlyTheChosenStores() {
        take("local", "a", Duration.ofMinutes(1));
        take("files", "b", Duration.ofMinutes(1));

        LockSnapshot snapshot = service.read(new LockFilter("", LockFilter.NameMatch.PREFIX, Set.of("files")));

        assertThat(names(snapshot.page(LockSort.DEFAULT, 0, 10))).containsExactly("files/app:b");
    }

    @Test
    void aStoreThatCannotBeReachedBecomesAProblemWhileTheOthersStillList() throws IOException {
        take("local", "still-listed", Duration.ofMinutes(1));
        take("files", "lost", Duration.ofMinutes(1));
        deleteLockFolder();

        LockSnapshot snapshot = service.read(LockFilter.all());

        assertThat(names(snapshot.page(LockSort.DEFAULT, 0, 10))).containsExactly("local/still-listed");
        assertThat(snapshot.problems()).singleElement().satisfies(problem -> {
            assertThat(problem.store()).isEqualTo("files");
            assertThat(problem.message()).contains(lockFolder.getFileName().toString());
        });
    }

    @Test
    void aStoreHoldingMoreThanTheScanLimitIsReportedAsTruncated() {
        LockConsoleService limited = new LockConsoleService(registry, statistics, scanLimit(5), ADMIN);
        for (int i = 0; i < 7; i++) {
            take("local", "job:" + i, Duration.ofMinutes(1));
        }
        take("files", "single", Duration.ofMinutes(1));

        LockSnapshot snapshot = limited.read(LockFilter.all());

        assertThat(snapshot.truncated()).containsExactly("local");
        assertThat(snapshot.size()).isEqualTo(6);
    }

    /** Exactly the scan limit is all there is: the console asks for one more to tell, and says nothing is missing. */
    @Test
    void aStoreHoldingExactlyTheScanLimitIsNotReportedAsTruncated() {
        LockConsoleService limited = new LockConsoleService(registry, statistics, scanLimit(5), ADMIN);
        for (int i = 0; i < 5; i++) {
            take("local", "job:" + i, Duration.ofMinutes(1));
        }

        LockSnapshot snapshot = limited.read(LockFilter.all());

        assertThat(snapshot.truncated()).isEmpty();
        assertThat(snapshot.size()).isEqualTo(5);
        assertThat(limited.tiles())
                .filteredOn(tile -> tile.store().equals("local"))
                .singleElement()
                .satisfies(tile -> {
                    assertThat(tile.liveLocks()).isEqualTo(5);
                    assertThat(tile.moreLocks()).isFalse();
                });
    }

    @Test
    void readingOnceServesEveryPageWithoutAskingTheStoresAgain() {
        CountingStore counting = new CountingStore(new MemoryLockStore());
        try (LockRegistry counted =
                LockRegistry.builder().store("counted", counting).build()) {
            for (int i = 0; i < 30; i++) {
                assertThat(counted.lock("job:" + i, Duration.ofMinutes(1)).get())
                        .isTrue();
            }
            LockSnapshot snapshot =
                    new LockConsoleService(counted, statistics, ConsoleSettings.DEFAULTS, ADMIN).read(LockFilter.all());

            snapshot.page(LockSort.DEFAULT, 0, 10);
            snapshot.page(LockSort.DEFAULT, 10, 10);
            snapshot.page(List.of(LockSort.descending(LockColumn.FENCE)), 0, 10);

            assertThat(counting.lists()).isEqualTo(1);
        }
    }

    private LockInfo listed(String name) {
        return service.read(new LockFilter(name, LockFilter.NameMatch.CONTAINS, Set.of()))
                .page(LockSort.DEFAULT, 0, 1)
                .get(0);
    }

    @Test
    void aUserInTheRoleForceReleasesTheLockThenHearsThatItWasAlreadyReleased() {
        Lock held = take("files", "stuck", Duration.ofMinutes(5));
        LockInfo listed = listed("stuck");

        assertThat(service.forceRelease(listed)).isEqualTo(ForceReleaseOutcome.RELEASED);
        assertThat(held.isLocked()).isFalse();
        assertThat(service.forceRelease(listed)).isEqualTo(ForceReleaseOutcome.ALREADY_RELEASED);
        assertThat(service.read(LockFilter.all()).size()).isZero();
    }

    @Test
    void aUserWithoutTheRoleCannotForceReleaseAndTheLockStaysHeld() {
        Lock held = take("local", "stuck", Duration.ofMinutes(5));
        LockConsoleService asOperator = new LockConsoleService(
                registry, statistics, ConsoleSettings.DEFAULTS, TestCaller.user("operator", "viewer"));

        assertThatThrownBy(() -> asOperator.forceRelease(listed("stuck")))
                .isInstanceOfSatisfying(ForceReleaseRefusedException.class, refused -> {
                    assertThat(refused.callerName()).contains("operator");
                    assertThat(refused.signInRequired()).isFalse();
                    assertThat(refused.role()).isEqualTo("exclusive-admin");
                })
                .hasMessage("Force-release of lock 'stuck' in store 'local' refused: user 'operator' is not in role"
                        + " 'exclusive-admin'; nothing was released");
        assertThat(held.isLocked()).isTrue();
        assertThat(held.extend()).as("still this handle's lease").isTrue();
    }

    @Test
    void withNobodySignedInNothingIsForceReleased() {
        Lock held = take("files", "stuck", Duration.ofMinutes(5));
        LockConsoleService withoutCaller =
                new LockConsoleService(registry, statistics, ConsoleSettings.DEFAULTS, TestCaller.nobody());

        assertThatThrownBy(() -> withoutCaller.forceRelease(listed("stuck")))
                .isInstanceOfSatisfying(ForceReleaseRefusedException.class, refused -> {
                    assertThat(refused.callerName()).isEmpty();
                    assertThat(refused.signInRequired()).isTrue();
                    assertThat(refused.lockName()).isEqualTo("app:stuck");
                    assertThat(refused.storeName()).isEqualTo("files");
                });
        assertThat(held.isLocked()).isTrue();
        assertThat(listed("stuck").fence()).isEqualTo(held.fence().getAsLong());
    }

    @Test
    void theConfiguredRoleIsTheOneAForceReleaseNeeds() {
        take("local", "a", Duration.ofMinutes(5));
        take("local", "b", Duration.ofMinutes(5));
        LockConsoleService adminOnly = new LockConsoleService(
                registry, statistics, role("lock-ops"), TestCaller.user("admin", "exclusive-admin"));
        LockConsoleService lockOps =
                new LockConsoleService(registry, statistics, role("lock-ops"), TestCaller.user("ops", "lock-ops"));

        assertThatThrownBy(() -> adminOnly.forceRelease(listed("a")))
                .isInstanceOf(ForceReleaseRefusedException.class)
                .hasMessageContaining("not in role 'lock-ops'");
        assertThat(lockOps.forceRelease(listed("b"))).isEqualTo(ForceReleaseOutcome.RELEASED);
        assertThat(names(lockOps.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 10)))
                .containsExactly("local/a");
    }

    @Test
    void aRefusedForceReleaseIsLoggedAtWarningWithWhoAndWhichLock() {
        take("local", "imports:users", Duration.ofMinutes(5));
        LockInfo listed = listed("imports:users");
        LockConsoleService asOperator =
                new LockConsoleService(registry, statistics, ConsoleSettings.DEFAULTS, TestCaller.user("operator"));
        LockConsoleService withoutCaller =
                new LockConsoleService(registry, statistics, ConsoleSettings.DEFAULTS, TestCaller.nobody());

        try (CapturedLog log = CapturedLog.of(LockConsoleService.class)) {
            assertThatThrownBy(() -> asOperator.forceRelease(listed)).isInstanceOf(ForceReleaseRefusedException.class);
            assertThatThrownBy(() -> withoutCaller.forceRelease(listed))
                    .isInstanceOf(ForceReleaseRefusedException.class);

            assertThat(log.messages(Level.WARNING))
                    .containsExactly(
                            "Refused to force-release lock 'imports:users' in store 'local' for user 'operator': not"
                                    + " in role 'exclusive-admin'; nothing was released",
                            "Refused to force-release lock 'imports:users' in store 'local' for a caller who is not"
                                    + " signed in: nobody is signed in; nothing was released");
            assertThat(log.messages(Level.INFO)).isEmpty();
        }
    }

    @Test
    void aForceReleaseIsLoggedWithTheCallerTheContainerKnows() {
        take("local", "imports:users", Duration.ofMinutes(5));

        try (CapturedLog log = CapturedLog.of(LockConsoleService.class)) {
            service.forceRelease(listed("imports:users"));

            assertThat(log.messages(Level.INFO))
                    .singleElement()
                    .asString()
                    .startsWith("Lock 'imports:users' in store 'local' force-released by 'admin': released");
        }
    }

    @Test
    void pagingRejectsNegativeBounds() {
        LockSnapshot snapshot = service.read(LockFilter.all());

        assertThatThrownBy(() -> snapshot.page(LockSort.DEFAULT, -1, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset -1");
        assertThatThrownBy(() -> new LockConsoleService(registry, statistics, scanLimit(0), ADMIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scanLimit");
    }
}

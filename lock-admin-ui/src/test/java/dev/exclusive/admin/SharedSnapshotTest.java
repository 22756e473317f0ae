package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every console on a server shares one listing per store per refresh interval: counted on real memory stores. */
class SharedSnapshotTest {

    @TempDir
    Path folder;

    private static final int CONSOLES = 20;
    private static final Duration INTERVAL = ConsoleSettings.DEFAULTS.refresh();

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final AtomicLong changes = new AtomicLong();
    private CountingStore first;
    private CountingStore second;
    private LockRegistry registry;
    private LockConsoleService service;

    @BeforeEach
    void holdLocks() {
        first = new CountingStore(new MemoryLockStore());
        second = new CountingStore(new MemoryLockStore());
        registry = LockRegistry.builder()
                .store("first", first)
                .store("second", second)
                .instanceName("node-1")
                .build();
        for (int i = 0; i < 30; i++) {
            assertThat(registry.store("first")
                            .lock("job:" + i, Duration.ofMinutes(5))
                            .get())
                    .isTrue();
            assertThat(registry.store("second")
                            .lock("task:" + i, Duration.ofMinutes(5))
                            .get())
                    .isTrue();
        }
        service = new LockConsoleService(
                registry,
                new LockStatistics(),
                ConsoleSettings.DEFAULTS,
                TestCaller.user("admin", "exclusive-admin"),
                changes::get,
                clock::get);
    }

    @AfterEach
    void closeStores() {
        registry.close();
    }

    private List<Integer> readConcurrently(int readers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(readers);
        try {
            CyclicBarrier start = new CyclicBarrier(readers);
            List<Future<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < readers; i++) {
                reads.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return service.read(LockFilter.all()).size();
                }));
            }
            List<Integer> sizes = new ArrayList<>();
            for (Future<Integer> read : reads) {
                sizes.add(read.get(10, TimeUnit.SECONDS));
            }
            return sizes;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twentyConsolesReadingInOneIntervalCauseOneScanPerStore() throws Exception {
        List<Integer> sizes = readConcurrently(CONSOLES);

        assertThat(sizes).hasSize(CONSOLES).containsOnly(60);
        assertThat(first.lists()).isEqualTo(1);
        assertThat(second.lists()).isEqualTo(1);
    }

    @Test
    void theNextIntervalScansEachStoreOnceMore() throws Exception {
        readConcurrently(CONSOLES);
        clock.addAndGet(INTERVAL.toNanos() - 1);
        readConcurrently(CONSOLES);
        assertThat(first.lists()).as("still within the interval").isEqualTo(1);

        clock.addAndGet(1);
        readConcurrently(CONSOLES);

        assertThat(first.lists()).isEqualTo(2);
        assertThat(second.lists()).isEqualTo(2);
    }

    @Test
    void aLockChangeInThisJvmMakesTheNextReadScanAgainAndSeeIt() {
        service.read(LockFilter.all());
        assertThat(registry.store("first").lock("late", Duration.ofMinutes(5)).get())
                .isTrue();
        changes.incrementAndGet();

        LockSnapshot after = service.read(LockFilter.all());

        assertThat(after.size()).isEqualTo(61);
        assertThat(first.lists()).isEqualTo(2);
    }

    @Test
    void aForceReleaseIsSeenByTheNextReadOfEveryConsole() {
        LockSnapshot before = service.read(LockFilter.all());
        service.forceRelease(before.page(LockSort.DEFAULT, 0, 1).get(0));

        assertThat(service.read(LockFilter.all()).size()).isEqualTo(59);
    }

    @Test
    void differentPrefixesAreScannedSeparatelyAndEachIsShared() {
        LockFilter jobs = new LockFilter("job:1", LockFilter.NameMatch.PREFIX, Set.of("first"));
        for (int console = 0; console < CONSOLES; console++) {
            assertThat(service.read(jobs).size()).isEqualTo(11);
            assertThat(service.read(LockFilter.all()).size()).isEqualTo(60);
        }

        assertThat(first.lists()).isEqualTo(2);
        assertThat(second.lists()).isEqualTo(1);
    }

    /**
     * A store that is down answers only when its timeout ends, which may be longer than the refresh interval. One
     * refresh of a console (its grid, its tiles, its history) still asks it once: the listing counts from when it
     * came back, and the history does not ask a store whose listing just failed. Before, the listing was stale when
     * it returned, so the tiles listed the store again and the history read its trail: three timeouts per refresh,
     * with the console's session locked.
     */
    @Test
    void aStoresMessageIsShownWithoutTheCredentialsItQuotes() {
        first.listFails = true;
        first.listFailure = "cannot reach redis://ops:s3cret-pass@cache.internal:6379 (auth password=hunter2-pass)";

        List<StoreProblem> problems = service.read(LockFilter.all()).problems();

        assertThat(problems)
                .extracting(StoreProblem::message)
                .singleElement()
                .satisfies(message -> assertThat(message)
                        .contains("redis://***@cache.internal:6379")
                        .doesNotContain("s3cret-pass", "hunter2-pass"));
    }

    @Test
    void aStoreDownForLongerThanTheIntervalIsAskedOncePerRefresh() {
        first.listFails = true;
        first.auditTrailFails = true;
        first.beforeList = () -> clock.addAndGet(INTERVAL.multipliedBy(2).toNanos()); // its timeout

        LockSnapshot grid = service.read(LockFilter.all());
        List<StoreTile> tiles = service.tiles();
        LockHistory history = service.history();

        assertThat(first.lists()).as("one listing for the grid and the tiles").isEqualTo(1);
        assertThat(first.auditReads())
                .as("no audit read of a store whose listing just failed")
                .isZero();
        assertThat(grid.problems()).extracting(StoreProblem::store).containsExactly("first");
        assertThat(tiles)
                .filteredOn(tile -> tile.store().equals("first"))
                .allMatch(tile -> tile.problem().isPresent());
        assertThat(history.problems()).extracting(StoreProblem::store).containsExactly("first");
        assertThat(second.lists()).as("the store that is up is listed as usual").isEqualTo(1);
    }

    @Test
    void anUnreachableStoreIsAskedOncePerIntervalNotOncePerConsole() throws Exception {
        registry.close();
        Path lockFolder = Files.createDirectories(folder.resolve("locks"));
        first = new CountingStore(new FileLockStore(lockFolder));
        Files.delete(lockFolder);
        registry = LockRegistry.builder().store("down", first).build();
        service = new LockConsoleService(
                registry,
                new LockStatistics(),
                ConsoleSettings.DEFAULTS,
                TestCaller.nobody(),
                changes::get,
                clock::get);

        for (int console = 0; console < CONSOLES; console++) {
            assertThat(service.read(LockFilter.all()).problems()).hasSize(1);
        }

        assertThat(first.lists()).isEqualTo(1);
    }
}

package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.LockStatistics.ActivityPoint;
import dev.exclusive.LockStatistics.GroupContention;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.file.FileLockStore;
import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the service shapes for the tiles, the charts and the lock detail, from real stores and this server's
 * {@link LockStatistics} on a clock the test moves.
 */
class ConsoleStatisticsTest {

    /** A wall clock the test sets: the statistics put events in the second it reads. */
    static final class TestClock extends Clock {
        private volatile Instant now;

        TestClock(Instant now) {
            this.now = now;
        }

        void set(Instant next) {
            now = next;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private static final Instant START = Instant.parse("2026-12-01T04:00:02Z");
    private static final Duration INTERVAL = ConsoleSettings.DEFAULTS.refresh();

    @TempDir
    Path folder;

    private final TestClock wallClock = new TestClock(START);
    private final AtomicLong monotonic = new AtomicLong(1_000_000_000L);
    private final AtomicLong changes = new AtomicLong();
    private final LockStatistics statistics = new LockStatistics(wallClock);
    private Path lockFolder;
    private LockRegistry registry;
    private LockConsoleService service;

    @BeforeEach
    void startStores() throws IOException {
        lockFolder = Files.createDirectories(folder.resolve("locks"));
        registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .store("files", new FileLockStore(lockFolder))
                .instanceName("node-1")
                .listener(statistics)
                .build();
        service = new LockConsoleService(
                registry,
                statistics,
                ConsoleSettings.DEFAULTS,
                TestCaller.user("admin", "exclusive-admin"),
                changes::get,
                monotonic::get);
    }

    @AfterEach
    void closeStores() {
        registry.close();
    }

    private Lock take(String store, String name) {
        Lock lock = registry.store(store).lock(name, Duration.ofMinutes(1));
        assertThat(lock.get()).as("acquire %s in %s", name, store).isTrue();
        return lock;
    }

    private void busy(String store, String name) {
        assertThat(registry.store(store).lock(name, Duration.ofMinutes(1)).get())
                .as("%s in %s is held", name, store)
                .isFalse();
    }

    private void nextInterval() {
        monotonic.addAndGet(INTERVAL.toNanos());
    }

    private static StoreTile tile(List<StoreTile> tiles, String store) {
        return tiles.stream().filter(t -> t.store().equals(store)).findFirst().orElseThrow();
    }

    @Test
    void aTilePerConfiguredStoreWithItsLiveLocksAndThisServersLastMinute() {
        take("local", "reports:daily");
        take("local", "imports:users");
        for (int i = 0; i < 3; i++) {
            busy("local", "reports:daily");
        }
        take("files", "exports:nightly");

        List<StoreTile> tiles = service.tiles();

        assertThat(tiles).extracting(StoreTile::store).containsExactly("files", "local");
        StoreTile local = tile(tiles, "local");
        assertThat(local.reachable()).isTrue();
        assertThat(local.liveLocks()).isEqualTo(2);
        assertThat(local.moreLocks()).isFalse();
        assertThat(local.lastMinute().acquisitions()).isEqualTo(2);
        assertThat(local.lastMinute().busy()).isEqualTo(3);
        assertThat(local.lastMinute().acquisitionsPerSecond()).isEqualTo(2 / 60.0);
        assertThat(local.lastMinute().busyPerSecond()).isEqualTo(3 / 60.0);
        assertThat(local.lastMinute().p99Wait())
                .as("a one-shot get that acquired waits its round trip")
                .isPresent();
        StoreTile files = tile(tiles, "files");
        assertThat(files.liveLocks()).isEqualTo(1);
        assertThat(files.lastMinute().acquisitions()).isEqualTo(1);
        assertThat(files.lastMinute().busy()).isZero();
    }

    @Test
    void aStoreThatCannotBeListedIsAnUnreachableTileThatSaysWhy() throws IOException {
        take("files", "lost");
        // Moved away in one step, not emptied and deleted: the first acquisition started the store's background
        // cleanup, which may still be opening a lock file in the folder while the test removes it.
        Files.move(lockFolder, folder.resolve("moved-away"));

        StoreTile files = tile(service.tiles(), "files");

        assertThat(files.reachable()).isFalse();
        assertThat(files.problem())
                .get()
                .asString()
                .contains(lockFolder.getFileName().toString());
        assertThat(files.liveLocks()).isZero();
        assertThat(tile(service.tiles(), "local").reachable()).isTrue();
    }

    @Test
    void aStoreHoldingMoreThanTheScanLimitShowsThatItHoldsMore() {
        ConsoleSettings defaults = ConsoleSettings.DEFAULTS;
        LockConsoleService limited = new LockConsoleService(
                registry,
                statistics,
                new ConsoleSettings(defaults.route(), defaults.role(), defaults.refresh(), 3),
                TestCaller.user("admin", "exclusive-admin"));
        for (int i = 0; i < 5; i++) {
            take("local", "job:" + i);
        }

        StoreTile local = tile(limited.tiles(), "local");

        assertThat(local.liveLocks()).isEqualTo(3);
        assertThat(local.moreLocks()).isTrue();
    }

    @Test
    void everyConsoleGetsTheSameTilesAndActivityWithinOneRefreshInterval() {
        take("local", "reports:daily");
        List<StoreTile> first = service.tiles();
        ConsoleActivity activity = service.activity();

        for (int console = 0; console < 20; console++) {
            assertThat(service.tiles()).isSameAs(first);
            assertThat(service.activity()).isSameAs(activity);
        }

        take("local", "imports:users");
        assertThat(tile(service.tiles(), "local").liveLocks())
                .as("within the interval, the tiles are the shared ones")
                .isEqualTo(1);
        nextInterval();
        assertThat(service.tiles()).isNotSameAs(first);
        assertThat(tile(service.tiles(), "local").liveLocks()).isEqualTo(2);
        assertThat(service.activity()).isNotSameAs(activity);
    }

    @Test
    void aLockChangeHereOrAForceReleaseMakesTheNextTilesFresh() {
        take("local", "reports:daily");
        List<StoreTile> first = service.tiles();

        take("local", "imports:users");
        changes.incrementAndGet();
        assertThat(tile(service.tiles(), "local").liveLocks()).isEqualTo(2);

        LockInfo listed = service.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 10).stream()
                .filter(lock -> lock.name().equals("imports:users"))
                .findFirst()
                .orElseThrow();
        assertThat(service.forceRelease(listed)).isEqualTo(ForceReleaseOutcome.RELEASED);
        assertThat(tile(service.tiles(), "local").liveLocks()).isEqualTo(1);
        assertThat(first).isNotSameAs(service.tiles());
    }

    @Test
    void theChartsAverageThisServersCallsPerFiveSecondsOverTheLastFifteenMinutes() {
        // 04:00:02–04:00:04: 2 acquisitions and 4 busy answers; 04:00:07: one more acquisition
        wallClock.set(START);
        take("local", "reports:daily");
        busy("local", "reports:daily");
        wallClock.set(START.plusSeconds(2));
        take("local", "imports:users");
        busy("local", "reports:daily");
        busy("local", "imports:users");
        busy("local", "imports:users");
        wallClock.set(START.plusSeconds(5));
        take("files", "exports:nightly");
        // now 04:00:11: buckets up to 04:00:10 are complete
        wallClock.set(START.plusSeconds(9));

        ConsoleActivity activity = service.activity();

        assertThat(activity.bucket()).isEqualTo(Duration.ofSeconds(5));
        assertThat(activity.to()).isEqualTo(Instant.parse("2026-12-01T04:00:10Z"));
        assertThat(Duration.between(activity.from(), activity.to()))
                .isLessThanOrEqualTo(Duration.ofMinutes(15))
                .isGreaterThan(Duration.ofMinutes(15).minusSeconds(10));
        assertThat(activity.buckets()).hasSize(179);
        ConsoleActivity.Bucket last = activity.buckets().get(activity.buckets().size() - 1);
        ConsoleActivity.Bucket before =
                activity.buckets().get(activity.buckets().size() - 2);
        assertThat(before.end()).isEqualTo(Instant.parse("2026-12-01T04:00:05Z"));
        assertThat(before.acquisitionsPerSecond()).isEqualTo(2 / 5.0);
        assertThat(before.busyPerSecond()).isEqualTo(4 / 5.0);
        assertThat(last.end()).isEqualTo(Instant.parse("2026-12-01T04:00:10Z"));
        assertThat(last.acquisitionsPerSecond()).isEqualTo(1 / 5.0);
        assertThat(last.busyPerSecond()).isZero();
        assertThat(activity.buckets().subList(0, 177))
                .allSatisfy(bucket -> assertThat(bucket.acquisitionsPerSecond() + bucket.busyPerSecond())
                        .isZero());
    }

    @Test
    void theMostContendedListHoldsOnlyContendedGroupsMostContendedFirst() {
        Lock reports = take("local", "reports:daily");
        take("local", "imports:users");
        take("local", "exports:nightly");
        for (int i = 0; i < 3; i++) {
            busy("local", "reports:daily");
        }
        busy("local", "imports:users");

        List<GroupContention> top = service.activity().mostContended();

        assertThat(top).extracting(GroupContention::group).containsExactly(reports.group(), "imports:*");
        assertThat(top.get(0).store()).isEqualTo("local");
        assertThat(top.get(0).contended()).isEqualTo(3);
        assertThat(top.get(0).acquisitions()).isEqualTo(1);
        assertThat(top).extracting(GroupContention::group).doesNotContain("exports:*");
    }

    @Test
    void bucketsAreAlignedOnTheEpochAndTheCurrentSecondIsLeftOut() {
        List<ActivityPoint> points = new ArrayList<>();
        Instant first = Instant.parse("2026-12-01T04:00:03Z");
        for (int i = 0; i < 14; i++) {
            // 04:00:03 … 04:00:16; the last, 04:00:16, is the current second
            points.add(new ActivityPoint(first.plusSeconds(i), i, 2 * i, 1));
        }

        ConsoleActivity activity = LockConsoleService.activity(points, List.of(), Duration.ofSeconds(5));

        // 04:00:03–04 is before the first whole bucket; 04:00:15–16 is the incomplete one
        assertThat(activity.from()).isEqualTo(Instant.parse("2026-12-01T04:00:05Z"));
        assertThat(activity.to()).isEqualTo(Instant.parse("2026-12-01T04:00:15Z"));
        assertThat(activity.buckets())
                .containsExactly(
                        new ConsoleActivity.Bucket(Instant.parse("2026-12-01T04:00:10Z"), 4, 8, 1),
                        new ConsoleActivity.Bucket(Instant.parse("2026-12-01T04:00:15Z"), 9, 18, 1));
    }

    @Test
    void tooFewSecondsForOneWholeBucketGiveNoBucketButAWindowToDrawEmptyAxesIn() {
        List<ActivityPoint> points = List.of(
                new ActivityPoint(Instant.parse("2026-12-01T04:00:06Z"), 1, 0, 0),
                new ActivityPoint(Instant.parse("2026-12-01T04:00:07Z"), 1, 0, 0));

        ConsoleActivity activity = LockConsoleService.activity(points, List.of(), Duration.ofSeconds(5));

        assertThat(activity.buckets()).isEmpty();
        assertThat(activity.to()).isAfter(activity.from());
    }

    @Test
    void theDetailHearsHowManyCallersOfThisServerWaitForTheLockAndForHowLong() throws Exception {
        Lock held = take("local", "imports:users");
        LockInfo listed =
                service.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 1).get(0);
        assertThat(service.waitingOn(listed)).isEmpty();

        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> registry.store("local")
                .lock("imports:users", Duration.ofMinutes(1))
                .block(Duration.ofSeconds(30)));
        Optional<LockStatistics.Waiting> waiting = Optional.empty();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waiting.isEmpty() && System.nanoTime() < deadline) {
            waiting = service.waitingOn(listed);
            Thread.onSpinWait();
        }
        assertThat(waiting).as("the blocked caller is seen waiting").isPresent();
        assertThat(waiting.get().callers()).isEqualTo(1);
        wallClock.set(START.plusSeconds(4));
        assertThat(service.waitingOn(listed).orElseThrow().longest()).isEqualTo(Duration.ofSeconds(4));

        assertThat(held.release()).isTrue();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(service.waitingOn(listed))
                .as("nobody waits once it acquired")
                .isEmpty();
    }
}

package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.LockStatistics.ActivityPoint;
import dev.exclusive.LockStatistics.GroupContention;
import dev.exclusive.admin.internal.ConsoleAccess;
import dev.exclusive.admin.internal.ConsoleCaller;
import dev.exclusive.admin.internal.ConsoleFormat;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.admin.internal.ConsoleUpdates;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the console shows and does, over a {@link LockRegistry}: reads the live locks of every configured store,
 * filtered, into a {@link LockSnapshot} that pages them sorted any way, and force-releases locks. The view calls
 * only this; it never touches a store.
 *
 * <h2>Paging, and what it costs</h2>
 * A store answers {@link LockRegistry#liveLocks(String, int) liveLocks(prefix, limit)} with at most {@code limit}
 * live locks: when it holds more, an arbitrary {@code limit} of them (the registry sorts what it got, but a store
 * has no order to stop at). So no page, not even the first by name, can be cut without reading every matching
 * lock: {@link #read} reads up to {@code scanLimit} locks of each store once (the prefix filter goes to the stores;
 * "contains" is matched here), and the snapshot sorts and pages them in memory. The console reads once per refresh
 * and serves every page the grid asks for from that snapshot, so the browser only ever receives the rows it shows.
 * A store that holds more matching locks is reported in {@link LockSnapshot#truncated()}.
 *
 * <h2>One scan per store per refresh interval, shared by every console</h2>
 * A store's listing for one prefix is read by the first {@link #read} that needs it and shared by every later
 * {@code read} on this server, from any console, until it is older than the refresh interval
 * ({@code exclusive.console.refresh-millis}) or a lock changed in this JVM ({@link ConsoleUpdates} delivered a
 * change). So 50 open consoles with the same store prefix cost one scan per store per interval, not 50; while locks
 * keep changing here, at most one per store per {@link ConsoleUpdates#COALESCE} as well. Concurrent readers of a
 * stale listing wait for the one reading under way instead of starting their own. A failed listing is shared the
 * same way, so an unreachable store is not asked once per console. The reading happens on the caller's thread, on
 * demand: the service runs no thread and holds nothing after the application stops but the latest listings (at
 * most {@code scanLimit} locks per store and prefix; a prefix nobody asked for during two intervals is dropped).
 * A force-release here drops the store's listings at once.
 *
 * <h2>History</h2>
 * {@link #history()} reads the newest {@value #HISTORY_LIMIT} records of every store's audit trail
 * ({@link LockRegistry#auditTrail(int)}): force-releases and lost leases from every server on the store, kept by the
 * store. Each store's trail is shared by every console like a listing: read at most once per refresh interval, again
 * after a lock change in this JVM or a force-release here.
 *
 * <h2>At a glance, and the charts</h2>
 * {@link #tiles()} gives one {@link StoreTile} per configured store: whether it could be listed (and why not), its
 * live locks (from the shared listing of all its locks), and this server's acquisitions, busy answers and p99 wait
 * over the last minute ({@link LockStatistics#lastMinute(String)}). {@link #activity()} gives the charts' data: the
 * last {@value #ACTIVITY_MINUTES} minutes of {@link LockStatistics#perSecond(Duration)} averaged into
 * {@link #ACTIVITY_BUCKET} buckets, and the {@value #TOP_CONTENDED} most contended lock groups
 * ({@link LockStatistics#mostContended(int, Duration)}). The statistics are this server's only: each server
 * counts the calls of its own handles. Both are computed at most once per refresh interval for every console of
 * this server, like a listing (the tiles again after a lock change here); every console in that interval gets the
 * same instance. {@link #waitingOn(LockInfo)} asks the statistics directly: a map lookup, for an open lock detail.
 *
 * <h2>Failures</h2>
 * A store that cannot be listed (unreachable, or failing in any other way) becomes a {@link StoreProblem} in the
 * snapshot; the other stores are listed as usual.
 *
 * <h2>Security</h2>
 * {@link #forceRelease} acts for the caller the container knows on the calling thread ({@link ConsoleCaller}),
 * and records that user's principal name as the actor in the store's audit trail; not for whoever the view says:
 * only an authenticated user in the console's role ({@code exclusive.console.role}, default
 * {@code exclusive-admin}) releases anything; everyone else, and a thread with no caller at all, is refused
 * and logged at {@code WARNING}. Reading is not checked here: the view refuses users without the role, and its
 * refreshes also run on push and background threads that carry no caller.
 *
 * <p>Thread-safe.
 */
@ApplicationScoped
public class LockConsoleService {

    private static final System.Logger LOG = System.getLogger(LockConsoleService.class.getName());

    private final LockRegistry registry;
    private final LockStatistics statistics;
    private final int scanLimit;
    private final String role;
    private final ConsoleCaller caller;
    private final long refreshNanos;
    private final LongSupplier changes;
    private final LongSupplier nanoTime;
    private final Map<ScanKey, SharedScan> scans = new ConcurrentHashMap<>();
    private final Map<String, SharedHistory> histories = new ConcurrentHashMap<>();
    private final Shared<List<StoreTile>> tiles;
    private final Shared<ConsoleActivity> activity;

    /** How many records of each store's audit trail {@link #history()} reads. */
    public static final int HISTORY_LIMIT = 50;

    /** How far back {@link #activity()} reaches, in minutes. */
    public static final int ACTIVITY_MINUTES = 15;

    /** How long each bucket of {@link #activity()} is: the charts' resolution. */
    public static final Duration ACTIVITY_BUCKET = Duration.ofSeconds(5);

    /** How many lock groups {@link #activity()} lists as the most contended. */
    public static final int TOP_CONTENDED = 10;

    /** For the container's client proxy. */
    protected LockConsoleService() {
        this.registry = null;
        this.statistics = null;
        this.tiles = null;
        this.activity = null;
        this.scanLimit = 0;
        this.role = null;
        this.caller = null;
        this.refreshNanos = 0;
        this.changes = null;
        this.nanoTime = null;
    }

    /**
     * The container's constructor: listings are shared until the refresh interval passes or {@code updates}
     * delivers a lock change made in this JVM.
     *
     * @param registry   the registry whose stores the console lists (lock-cdi's default {@code LockRegistry})
     * @param statistics this server's lock statistics (lock-cdi's), for the tiles, the charts and the waiters
     * @param settings   the console's settings: the refresh interval, the scan limit and the role a force-release
     *                   needs
     * @param caller     who calls, as the container knows them
     * @param updates    the lock changes made in this JVM, which make the shared listings stale
     */
    @Inject
    public LockConsoleService(
            LockRegistry registry,
            LockStatistics statistics,
            ConsoleSettings settings,
            ConsoleCaller caller,
            ConsoleUpdates updates) {
        this(
                registry,
                statistics,
                settings,
                caller,
                Objects.requireNonNull(updates, "updates")::changesDelivered,
                System::nanoTime);
    }

    /**
     * Without lock-change updates (Java SE, tests): listings are shared for one refresh interval.
     *
     * @param registry   the registry whose stores the console lists
     * @param statistics the statistics the registry reports to (a listener of it), for the tiles, the charts and the
     *                   waiters
     * @param settings   the console's settings: the refresh interval, the scan limit and the role a force-release
     *                   needs
     * @param caller     who calls
     */
    public LockConsoleService(
            LockRegistry registry, LockStatistics statistics, ConsoleSettings settings, ConsoleCaller caller) {
        this(registry, statistics, settings, caller, () -> 0L, System::nanoTime);
    }

    /**
     * @param changes  a count that moves when a lock changed in this JVM
     * @param nanoTime the monotonic clock the refresh interval is measured on
     */
    LockConsoleService(
            LockRegistry registry,
            LockStatistics statistics,
            ConsoleSettings settings,
            ConsoleCaller caller,
            LongSupplier changes,
            LongSupplier nanoTime) {
        if (settings.scanLimit() < 1) {
            throw new IllegalArgumentException("scanLimit must be positive, got " + settings.scanLimit());
        }
        this.registry = Objects.requireNonNull(registry, "registry");
        this.scanLimit = settings.scanLimit();
        this.role = Objects.requireNonNull(settings.role(), "role");
        this.caller = Objects.requireNonNull(caller, "caller");
        this.refreshNanos = settings.refresh().toNanos();
        this.changes = Objects.requireNonNull(changes, "changes");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.statistics = Objects.requireNonNull(statistics, "statistics");
        this.tiles = new Shared<>(this::readTiles, true);
        this.activity = new Shared<>(this::readActivity, false);
    }

    /** @return the names of the configured stores, sorted */
    public Set<String> storeNames() {
        return registry.storeNames();
    }

    /** @return the most live locks read from one store for one query */
    public int scanLimit() {
        return scanLimit;
    }

    /**
     * Reads the live locks that {@code filter} selects from every store it includes: up to {@code scanLimit} from
     * each. A store's listing for the filter's store prefix is shared with every other caller that asks for it within
     * one refresh interval and before the next lock change in this JVM (see the class javadoc), so the locks may be up
     * to one interval old.
     *
     * @param filter which locks
     * @return the snapshot, with the stores that could not be listed
     */
    public LockSnapshot read(LockFilter filter) {
        long now = nanoTime.getAsLong();
        scans.values().removeIf(scan -> scan.unusedSince(now, refreshNanos * 2));
        List<LockInfo> matching = new ArrayList<>();
        List<StoreProblem> problems = new ArrayList<>();
        Set<String> truncated = new HashSet<>();
        Instant readAt = null;
        for (String store : registry.storeNames()) {
            if (!filter.includesStore(store)) {
                continue;
            }
            SharedScan.Listing listing = scans.computeIfAbsent(
                            new ScanKey(store, filter.storePrefix()), key -> new SharedScan(key, now))
                    .listing(nanoTime.getAsLong());
            readAt = readAt == null || listing.readAt().isBefore(readAt) ? listing.readAt() : readAt;
            if (listing.problem() != null) {
                problems.add(listing.problem());
                continue;
            }
            if (listing.more()) {
                truncated.add(store);
            }
            for (LockInfo lock : listing.locks()) {
                if (filter.matches(lock)) {
                    matching.add(lock);
                }
            }
        }
        return new LockSnapshot(matching, problems, truncated, readAt == null ? Instant.now() : readAt);
    }

    /**
     * Lists one store once, one lock more than the scan limit, which tells a store that holds more from one that
     * holds exactly the limit; any failure becomes the store's problem.
     */
    private SharedScan.Listing scan(ScanKey key) {
        Instant readAt = Instant.now();
        try {
            int asked = scanLimit == Integer.MAX_VALUE ? scanLimit : scanLimit + 1;
            List<LockInfo> read = registry.store(key.store()).liveLocks(key.prefix(), asked);
            boolean more = read.size() > scanLimit;
            return new SharedScan.Listing(more ? List.copyOf(read.subList(0, scanLimit)) : read, more, null, readAt);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "Store ''{0}'' could not be listed", key.store(), e);
            return new SharedScan.Listing(
                    List.of(), false, new StoreProblem(key.store(), ConsoleFormat.failure(e)), readAt);
        }
    }

    /**
     * One tile per configured store, sorted by name: whether it could be listed, its live locks, and this server's
     * activity on it over the last minute. Computed at most once per refresh interval (and again after a lock change
     * here) for every console of this server; the listings it counts are the shared ones of {@link #read}.
     *
     * @return the tiles
     */
    public List<StoreTile> tiles() {
        return tiles.get(nanoTime.getAsLong());
    }

    private List<StoreTile> readTiles() {
        List<StoreTile> read = new ArrayList<>();
        for (String store : registry.storeNames()) {
            // the listing of all its locks, as read(LockFilter.all()) shares it with the consoles' grids
            long now = nanoTime.getAsLong();
            SharedScan.Listing listing = scans.computeIfAbsent(
                            new ScanKey(store, LockFilter.all().storePrefix()), key -> new SharedScan(key, now))
                    .listing(now);
            read.add(new StoreTile(
                    store,
                    Optional.ofNullable(listing.problem()).map(StoreProblem::message),
                    listing.locks().size(),
                    listing.more(),
                    statistics.lastMinute(store)));
        }
        return List.copyOf(read);
    }

    /**
     * This server's activity over the last {@value #ACTIVITY_MINUTES} minutes, for the charts: calls per second
     * averaged per {@link #ACTIVITY_BUCKET}, complete buckets only (so a chart changes once per bucket), and the
     * {@value #TOP_CONTENDED} most contended lock groups. Computed at most once per refresh interval for every console
     * of this server.
     *
     * @return the activity
     */
    public ConsoleActivity activity() {
        return activity.get(nanoTime.getAsLong());
    }

    private ConsoleActivity readActivity() {
        Duration window = Duration.ofMinutes(ACTIVITY_MINUTES);
        List<GroupContention> contended = statistics.mostContended(TOP_CONTENDED, window).stream()
                .filter(group -> group.contended() > 0)
                .toList();
        return activity(statistics.perSecond(window), contended, ACTIVITY_BUCKET);
    }

    /**
     * Averages one point per second into buckets of {@code bucket}, aligned on the epoch (so that every console and
     * every refresh cuts them the same way). The last point is the current, incomplete second: only buckets whose
     * every second lies before it and inside the points are kept.
     *
     * @param perSecond     one point per second, oldest first, the current second last
     * @param mostContended the most contended groups
     * @param bucket        the bucket length, whole seconds
     * @return the buckets and groups, over the window the points cover
     */
    static ConsoleActivity activity(
            List<ActivityPoint> perSecond, List<GroupContention> mostContended, Duration bucket) {
        long width = bucket.getSeconds();
        if (width < 1 || bucket.getNano() != 0) {
            throw new IllegalArgumentException("A bucket must be a whole number of seconds, got " + bucket);
        }
        if (perSecond.isEmpty()) {
            Instant now = Instant.now();
            return new ConsoleActivity(now.minus(bucket), now, bucket, List.of(), mostContended);
        }
        long current = perSecond.get(perSecond.size() - 1).second().getEpochSecond();
        long first = perSecond.get(0).second().getEpochSecond();
        long end = Math.floorDiv(current, width) * width;
        long start = Math.floorDiv(first + width - 1, width) * width;
        int buckets = (int) Math.max(0, (end - start) / width);
        long[][] sums = new long[buckets][3];
        for (ActivityPoint point : perSecond) {
            long second = point.second().getEpochSecond();
            if (second < start || second >= end) {
                continue;
            }
            long[] sum = sums[(int) ((second - start) / width)];
            sum[0] += point.acquisitions();
            sum[1] += point.busy();
            sum[2] += point.waits();
        }
        List<ConsoleActivity.Bucket> averaged = new ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
            averaged.add(new ConsoleActivity.Bucket(
                    Instant.ofEpochSecond(start + (i + 1) * width),
                    (double) sums[i][0] / width,
                    (double) sums[i][1] / width,
                    (double) sums[i][2] / width));
        }
        Instant to = Instant.ofEpochSecond(end);
        Instant from = Instant.ofEpochSecond(Math.min(start, end - width));
        return new ConsoleActivity(from, to, bucket, averaged, mostContended);
    }

    /**
     * The callers of this server waiting for a lock now, for its detail: a lookup in this server's statistics, not
     * shared (it is cheap, and only an open detail asks).
     *
     * @param lock a lock from {@link #read}
     * @return how many wait and the longest wait so far; empty when no caller of this server waits for it
     */
    public Optional<LockStatistics.Waiting> waitingOn(LockInfo lock) {
        return statistics.waitingOn(lock.store(), lock.name());
    }

    /**
     * A value every console of this server shares: computed by the first caller that finds it older than the refresh
     * interval (or, if {@code followsChanges}, older than the last lock change in this JVM); the others wait for that
     * computation instead of starting their own.
     */
    private final class Shared<T> {

        private final Supplier<T> compute;
        private final boolean followsChanges;
        private T value;
        private long readNanos;
        private long readAfterChanges;

        Shared(Supplier<T> compute, boolean followsChanges) {
            this.compute = compute;
            this.followsChanges = followsChanges;
        }

        synchronized T get(long now) {
            long seenChanges = followsChanges ? changes.getAsLong() : 0;
            if (value == null || now - readNanos >= refreshNanos || seenChanges != readAfterChanges) {
                value = compute.get();
                readNanos = now;
                readAfterChanges = seenChanges;
            }
            return value;
        }

        synchronized void invalidate() {
            value = null;
        }
    }

    /**
     * The newest records of every store's audit trail, newest first across stores. Each store's trail is read at
     * most once per refresh interval for all consoles of this server (and again after a lock change here).
     *
     * @return the records, with the stores whose trail could not be read
     */
    public LockHistory history() {
        List<LockHistory.Entry> entries = new ArrayList<>();
        List<StoreProblem> problems = new ArrayList<>();
        for (String store : registry.storeNames()) {
            SharedHistory.Trail trail =
                    histories.computeIfAbsent(store, SharedHistory::new).trail(nanoTime.getAsLong());
            if (trail.problem() != null) {
                problems.add(trail.problem());
            } else {
                trail.entries().forEach(entries::add);
            }
        }
        return new LockHistory(entries, problems);
    }

    /** One store's audit trail as the consoles of this server share it: the same rules as {@link SharedScan}. */
    private final class SharedHistory {

        record Trail(List<LockHistory.Entry> entries, StoreProblem problem) {}

        private final String store;
        private Trail trail;
        private long readNanos;
        private long readAfterChanges;

        SharedHistory(String store) {
            this.store = store;
        }

        synchronized Trail trail(long now) {
            long seenChanges = changes.getAsLong();
            if (trail == null || now - readNanos >= refreshNanos || seenChanges != readAfterChanges) {
                // a store whose listing just failed is down: reading its trail would wait out its timeout again
                SharedScan scan = scans.get(new ScanKey(store, LockFilter.all().storePrefix()));
                StoreProblem down = scan == null ? null : scan.recentProblem(now);
                trail = down != null ? new Trail(List.of(), down) : read();
                readNanos = nanoTime.getAsLong();
                readAfterChanges = seenChanges;
            }
            return trail;
        }

        private Trail read() {
            try {
                return new Trail(
                        registry.store(store).auditTrail(HISTORY_LIMIT).stream()
                                .map(record -> new LockHistory.Entry(store, record))
                                .toList(),
                        null);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "The audit trail of store ''{0}'' could not be read", store, e);
                return new Trail(List.of(), new StoreProblem(store, ConsoleFormat.failure(e)));
            }
        }
    }

    /** A store and the prefix it is asked for: the unit one scan answers and every console shares. */
    private record ScanKey(String store, String prefix) {}

    /**
     * One store's latest listing for one prefix, shared by every caller until it is older than the refresh interval
     * or a lock changed in this JVM since it was read. The first caller to find it stale reads the store while the
     * others wait for that reading rather than start their own: callers block at most for one store call, bounded
     * by the store's own timeouts.
     */
    private final class SharedScan {

        /** {@code more}: the store holds more than the {@code locks} read (at most the scan limit). */
        record Listing(List<LockInfo> locks, boolean more, StoreProblem problem, Instant readAt) {}

        private final ScanKey key;
        private Listing listing;
        private long readNanos;
        private long readAfterChanges;
        private volatile long lastUsedNanos;

        SharedScan(ScanKey key, long now) {
            this.key = key;
            this.lastUsedNanos = now;
        }

        synchronized Listing listing(long now) {
            lastUsedNanos = Math.max(lastUsedNanos, now);
            long seenChanges = changes.getAsLong();
            if (listing == null || now - readNanos >= refreshNanos || seenChanges != readAfterChanges) {
                listing = scan(key);
                readNanos = nanoTime.getAsLong(); // from its answer: a store that is down answers after its timeout
                readAfterChanges = seenChanges;
            }
            return listing;
        }

        /** @return the problem of a listing read within the refresh interval before {@code now}, else {@code null} */
        synchronized StoreProblem recentProblem(long now) {
            return listing != null && now - readNanos < refreshNanos ? listing.problem() : null;
        }

        boolean unusedSince(long now, long idleNanos) {
            return now - lastUsedNanos > idleNanos;
        }
    }

    /**
     * Whether {@link #forceRelease} would act for the caller the container knows on the calling thread: the same
     * check, so a view can leave out a button its user may not use. {@code forceRelease} checks again.
     *
     * @return whether the caller is an authenticated user in the console's role
     */
    public boolean mayForceRelease() {
        return ConsoleAccess.decide(caller.principal(), caller::isInRole, role) == ConsoleAccess.ALLOWED;
    }

    /**
     * Frees a lock whoever holds it now, in the store it was listed from, if the caller is an authenticated user in
     * the console's role, and logs who did it. lock-cdi's registry fires {@code LockForceReleased} with the caller's
     * principal to every observer.
     *
     * @param lock a lock from {@link #read}
     * @return whether a live lock was freed or it was free already
     * @throws ForceReleaseRefusedException                if nobody is signed in on this thread, or the user is not
     *                                                     in the console's role; nothing is released then
     * @throws dev.exclusive.LockStoreUnavailableException if the store cannot be reached
     * @throws dev.exclusive.UnknownStoreException         if the lock's store is not configured here
     */
    public ForceReleaseOutcome forceRelease(LockInfo lock) {
        Principal principal = caller.principal();
        String user = principal == null ? null : principal.getName();
        if (!mayForceRelease()) {
            LOG.log(
                    Level.WARNING,
                    "Refused to force-release lock ''{0}'' in store ''{1}'' for {2}: {3}; nothing was released",
                    lock.name(),
                    lock.store(),
                    user == null ? "a caller who is not signed in" : "user '" + user + "'",
                    user == null ? "nobody is signed in" : "not in role '" + role + "'");
            throw new ForceReleaseRefusedException(lock.store(), lock.name(), user, role);
        }
        boolean released = registry.forceRelease(lock, user);
        // this operator's next refresh, and everyone else's, must not show the freed lock, and must show the record
        scans.keySet().removeIf(key -> key.store().equals(lock.store()));
        histories.remove(lock.store());
        tiles.invalidate();
        ForceReleaseOutcome outcome = released ? ForceReleaseOutcome.RELEASED : ForceReleaseOutcome.ALREADY_RELEASED;
        LOG.log(
                Level.INFO,
                "Lock ''{0}'' in store ''{1}'' force-released by ''{2}'': {3} (listed holder {4},"
                        + " fence {5}, lease until {6})",
                lock.name(),
                lock.store(),
                user,
                outcome == ForceReleaseOutcome.RELEASED ? "released" : "it was already released",
                lock.holder(),
                lock.fence(),
                lock.expiresAt());
        return outcome;
    }
}

package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which rows changed in the last refreshes, so that the grid can mark them for a moment: a lock that is new, or whose
 * holder, fence or expiry differs from the previous snapshot, counts as changed for {@link #HIGHLIGHT}. The remaining
 * time alone, which counts down on every refresh, is no change.
 *
 * <p>The first snapshot changes nothing: opening the console does not light up every row. Not thread-safe: one per
 * view, used on the view's UI thread.
 */
final class ChangedRows {

    /** How long a changed row stays marked; the style fades it out over the same time. */
    static final Duration HIGHLIGHT = Duration.ofSeconds(2);

    /** What a row shows that makes it "changed" when it differs. */
    private record Shown(String holder, long fence, Instant expiresAt) {
        static Shown of(LockInfo lock) {
            return new Shown(lock.holder().encode(), lock.fence(), lock.expiresAt());
        }
    }

    private record Key(String store, String name) {
        static Key of(LockInfo lock) {
            return new Key(lock.store(), lock.name());
        }
    }

    private Map<Key, Shown> previous;
    private final Map<Key, Long> changedAtNanos = new HashMap<>();

    /**
     * Compares a new snapshot's locks with the previous ones.
     *
     * @param locks    every lock of the new snapshot
     * @param nowNanos a monotonic time ({@link System#nanoTime})
     */
    void update(List<LockInfo> locks, long nowNanos) {
        Map<Key, Shown> current = new HashMap<>();
        for (LockInfo lock : locks) {
            Key key = Key.of(lock);
            Shown shown = Shown.of(lock);
            current.put(key, shown);
            if (previous != null && !Objects.equals(previous.get(key), shown)) {
                changedAtNanos.put(key, nowNanos);
            }
        }
        changedAtNanos.keySet().retainAll(current.keySet());
        changedAtNanos.values().removeIf(at -> nowNanos - at >= HIGHLIGHT.toNanos());
        previous = current;
    }

    /**
     * @param lock     a lock of the latest snapshot
     * @param nowNanos a monotonic time ({@link System#nanoTime})
     * @return whether it changed less than {@link #HIGHLIGHT} ago
     */
    boolean highlighted(LockInfo lock, long nowNanos) {
        Long at = changedAtNanos.get(Key.of(lock));
        return at != null && nowNanos - at < HIGHLIGHT.toNanos();
    }
}

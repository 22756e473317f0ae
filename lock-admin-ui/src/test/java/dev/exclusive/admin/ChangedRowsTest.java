package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockHolder;
import dev.exclusive.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which rows count as changed after a refresh, and for how long. */
class ChangedRowsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final ChangedRows rows = new ChangedRows();

    private static LockInfo lock(String name, String instance, long fence, Instant expiresAt, Duration remaining) {
        return new LockInfo(
                "local",
                name,
                "owner-" + fence,
                new LockHolder(instance, "worker-1", "Job#run"),
                T0,
                expiresAt,
                remaining,
                fence);
    }

    private static LockInfo lock(String name) {
        return lock(name, "node-1", 7, T0.plusSeconds(60), Duration.ofSeconds(60));
    }

    @Test
    void theFirstSnapshotHighlightsNothing() {
        rows.update(List.of(lock("a")), 0);

        assertThat(rows.highlighted(lock("a"), 0)).isFalse();
    }

    @Test
    void theRemainingTimeCountingDownIsNoChange() {
        rows.update(List.of(lock("a")), 0);
        LockInfo later = lock("a", "node-1", 7, T0.plusSeconds(60), Duration.ofSeconds(59));

        rows.update(List.of(later), SECOND);

        assertThat(rows.highlighted(later, SECOND)).isFalse();
    }

    @Test
    void aNewLockANewHolderANewFenceAndANewExpiryAreChanges() {
        rows.update(List.of(lock("holder"), lock("fence"), lock("expiry"), lock("same")), 0);
        List<LockInfo> next = List.of(
                lock("new"),
                lock("holder", "node-2", 7, T0.plusSeconds(60), Duration.ofSeconds(60)),
                lock("fence", "node-1", 8, T0.plusSeconds(60), Duration.ofSeconds(60)),
                lock("expiry", "node-1", 7, T0.plusSeconds(90), Duration.ofSeconds(90)),
                lock("same"));

        rows.update(next, SECOND);

        assertThat(next.stream().filter(lock -> rows.highlighted(lock, SECOND)).map(LockInfo::name))
                .containsExactly("new", "holder", "fence", "expiry");
    }

    @Test
    void aChangedRowStaysHighlightedForTwoSecondsAcrossRefreshes() {
        rows.update(List.of(), 0);
        rows.update(List.of(lock("a")), SECOND);
        rows.update(List.of(lock("a")), 2 * SECOND);

        assertThat(rows.highlighted(lock("a"), 2 * SECOND))
                .as("one refresh later")
                .isTrue();
        assertThat(rows.highlighted(lock("a"), 3 * SECOND - 1)).isTrue();
        assertThat(rows.highlighted(lock("a"), 3 * SECOND)).isFalse();
    }

    @Test
    void aLockThatWasReleasedAndTakenAgainIsNewAgain() {
        rows.update(List.of(lock("a")), 0);
        rows.update(List.of(), SECOND);
        rows.update(List.of(lock("a")), 10 * SECOND);

        assertThat(rows.highlighted(lock("a"), 10 * SECOND)).isTrue();
    }
}

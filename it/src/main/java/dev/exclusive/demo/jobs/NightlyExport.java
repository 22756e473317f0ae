package dev.exclusive.demo.jobs;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.OnBusy;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The nightly export. Every server of the cluster fires the timer at 02:00; the lock lets the first one export
 * and makes the others skip it. {@link #exportNow()} runs the same export by hand, under the same lock.
 * <p>{@code LockType.READ}: the EJB's own lock is per server; the distributed lock decides who runs.
 */
@Singleton
@Lock(LockType.READ)
public class NightlyExport {

    /** How many runs {@link #runs()} keeps: anyone may start an export by hand, as often as they like. */
    static final int KEPT = 100;

    private final Deque<ExportRun> runs = new ArrayDeque<>();

    /** One export this server ran. */
    public record ExportRun(Instant startedAt, String trigger) {}

    @Schedule(hour = "2", minute = "0", persistent = false)
    @Exclusive(value = "exports:nightly", ttl = 600, onBusy = OnBusy.SKIP)
    void nightly() {
        record("timer");
    }

    /** @return the run, or empty if another server (or the timer) is exporting now */
    @Exclusive(value = "exports:nightly", ttl = 600, onBusy = OnBusy.SKIP)
    public Optional<ExportRun> exportNow() {
        return Optional.of(record("by hand"));
    }

    /** @return the last {@value #KEPT} exports this server ran, oldest first */
    public List<ExportRun> runs() {
        synchronized (runs) {
            return List.copyOf(runs);
        }
    }

    private ExportRun record(String trigger) {
        ExportRun run = new ExportRun(Instant.now(), trigger);
        synchronized (runs) {
            if (runs.size() == KEPT) {
                runs.removeFirst();
            }
            runs.addLast(run);
        }
        return run;
    }
}

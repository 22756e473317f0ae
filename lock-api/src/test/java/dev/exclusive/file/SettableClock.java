package dev.exclusive.file;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it, or that moves on by a step at every reading (so a test can tell
 * how many readings an operation took); safe to read from the store's cleanup thread.
 */
final class SettableClock extends Clock {

    private final AtomicReference<Instant> now;
    private final Duration step;

    SettableClock(Instant start) {
        this(start, Duration.ZERO);
    }

    /** @param step how far each reading moves the clock on, after it is read */
    SettableClock(Instant start, Duration step) {
        this.now = new AtomicReference<>(start);
        this.step = step;
    }

    void advance(Duration by) {
        now.updateAndGet(instant -> instant.plus(by));
    }

    @Override
    public Instant instant() {
        return now.getAndUpdate(instant -> instant.plus(step));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the store reads instants only");
    }
}

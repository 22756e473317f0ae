package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.memory.MemoryLockStore;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * LockListener: "an exception from a listener is logged and otherwise ignored". A metrics listener that fails must
 * never change what the lock does: here it throws what the JVM or a JVM language can throw besides a
 * RuntimeException (a linkage error of a mismatched OpenTelemetry API, a Kotlin/Scala listener's checked exception).
 */
class ListenerFailureIsolationTest {

    private static LockListener failingOnAcquired(Throwable failure) {
        return new LockListener() {
            @Override
            public void acquired(Lock lock, Duration waited) {
                ListenerFailureIsolationTest.<RuntimeException>sneaky(failure);
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneaky(Throwable t) throws T {
        throw (T) t;
    }

    @Test
    void aListenerCheckedExceptionNeitherSkipsTheWorkNorLeavesTheLockHeld() {
        assertWorkRunsAndLockIsFreed(failingOnAcquired(new IOException("exporter socket closed")));
    }

    @Test
    void aListenerLinkageErrorNeitherSkipsTheWorkNorLeavesTheLockHeld() {
        assertWorkRunsAndLockIsFreed(
                failingOnAcquired(new NoSuchMethodError("io.opentelemetry.api.trace.Span.isRecording()")));
    }

    private static void assertWorkRunsAndLockIsFreed(LockListener listener) {
        try (LockRegistry registry = LockRegistry.builder()
                .store("local", new MemoryLockStore())
                .listener(listener)
                .build()) {
            AtomicBoolean ran = new AtomicBoolean();
            boolean acquired;
            try {
                acquired = registry.lock("reports:daily", 60).autoExtend().get(() -> ran.set(true));
            } catch (Throwable escaped) {
                throw new AssertionError(
                        "the listener's failure reached the caller; still locked: "
                                + registry.lock("reports:daily", 60).isLocked(),
                        escaped);
            }
            assertTrue(acquired);
            assertTrue(ran.get(), "the work did not run");
            assertFalse(registry.lock("reports:daily", 60).isLocked(), "the lock is still held");
        }
    }
}

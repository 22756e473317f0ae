package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.redis.FailoverContenders.Figures;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The contenders of a failover test in two JVMs, {@value FailoverContenders#THREADS_PER_JVM} threads each: this
 * JVM's and those of a {@link FailoverContenders} process, driven together through one SIGKILL, each reporting
 * its own {@link Figures}.
 */
final class TwoJvmFailover implements AutoCloseable {

    /**
     * The slowest call either test accepts: a call retried (3 attempts) within the timeouts, plus the replica wait,
     * plus a second for a machine shared with other builds.
     */
    static final long SLOWEST_CALL_BOUND_MILLIS =
            FailoverContenders.TIMEOUT.toMillis() * 3 + FailoverContenders.REPLICA_TIMEOUT.toMillis() + 1_000;

    private final FailoverContenders here;
    private final Process other;
    private final Writer toOther;
    private final Path log;
    private final Path figures;

    private TwoJvmFailover(FailoverContenders here, Process other, Path log, Path figures) {
        this.here = here;
        this.other = other;
        this.toOther = new OutputStreamWriter(other.getOutputStream(), StandardCharsets.UTF_8);
        this.log = log;
        this.figures = figures;
    }

    /**
     * Starts the second JVM's contenders, then this JVM's, and waits until both take names; closing the result
     * kills the second JVM if it still runs.
     */
    static TwoJvmFailover start(FailoverContenders.Setup setup, Path folder) throws IOException, InterruptedException {
        Path log = Files.createTempFile(folder, "second-jvm", ".log");
        Path figures = Files.createTempFile(folder, "second-jvm", ".properties");
        List<String> args = new ArrayList<>(setup.args());
        args.add(figures.toString());
        Process other = RedisServers.startJvm(FailoverContenders.class, log, args.toArray(String[]::new));
        TwoJvmFailover jvms = new TwoJvmFailover(new FailoverContenders(setup, 0), other, log, figures);
        // this JVM's threads start once the second JVM's are going, so that both load the servers as long
        jvms.await(
                () -> jvms.logHas("started"), Duration.ofSeconds(20), "the contenders of the second JVM to get going");
        jvms.here.start();
        jvms.await(
                () -> jvms.here.churned.get() >= FailoverContenders.WARM_UP,
                Duration.ofSeconds(20),
                "the contenders of this JVM to get going");
        return jvms;
    }

    /**
     * Kills the server on {@code port} with SIGKILL, tells the second JVM, and waits until the contenders of both
     * took and freed {@value FailoverContenders#WARM_UP} names on the killed master's slots again.
     *
     * @return the milliseconds from the kill until both did
     */
    long killAndAwaitRecovery(int port) throws IOException, InterruptedException {
        ProcessHandle master = ProcessHandle.of(RedisServers.processId(port)).orElseThrow();
        long killed = System.nanoTime();
        master.destroyForcibly(); // SIGKILL
        here.killed(killed);
        tellOther("killed");
        int atKill = here.churnedOnKilledShard.get();
        await(
                () -> here.churnedOnKilledShard.get() > atKill + FailoverContenders.WARM_UP && logHas("recovered"),
                Duration.ofSeconds(30),
                "the stores of both JVMs to work again on the killed master's slots");
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
    }

    /** @return the figures of this JVM and of the second, once the contenders of both stopped */
    List<Figures> stop() throws IOException, InterruptedException {
        here.stop();
        tellOther("stop");
        assertTrue(other.waitFor(20, TimeUnit.SECONDS), "the second JVM ended: " + readLog());
        assertEquals(0, other.exitValue(), "the second JVM failed: " + readLog());
        return List.of(Figures.of("this JVM", here.figures()), Figures.read("second JVM", figures));
    }

    /**
     * Asserts, for each JVM, that every call answered acquired, busy or unavailable within
     * {@link #SLOWEST_CALL_BOUND_MILLIS}, that no lock held since before the kill went to a second holder, and that
     * no call on a master that was not killed failed (no extension refused, no release refused).
     */
    static void assertEveryCallAnsweredInTimeAndNoHeldLockWentToAnother(List<Figures> jvms, long recoveredMillis) {
        for (Figures jvm : jvms) {
            assertEquals(
                    0, jvm.unexpected(), jvm.jvm() + ": only acquired, busy or unavailable; " + jvm.firstProblems());
            assertEquals(
                    0,
                    jvm.secondHolders(),
                    jvm.jvm() + ": a lock held since before the kill went to another; " + jvm.firstProblems());
            assertEquals(
                    0, jvm.elsewhere(), jvm.jvm() + ": the other masters' callers noticed; " + jvm.firstProblems());
            assertTrue(
                    jvm.slowest() <= SLOWEST_CALL_BOUND_MILLIS,
                    jvm.jvm() + ": the slowest call took " + jvm.slowest() + " ms; bound " + SLOWEST_CALL_BOUND_MILLIS
                            + " ms (recovered after " + recoveredMillis + " ms)");
        }
    }

    @Override
    public void close() throws IOException {
        other.destroyForcibly();
        try {
            toOther.close();
        } catch (IOException e) {
            // the second JVM is gone: nothing left to tell it
        }
        here.close();
    }

    private void tellOther(String line) throws IOException {
        toOther.write(line + "\n");
        toOther.flush();
    }

    /** Polls {@code condition} as {@link RedisServers#awaitTrue} does, failing at once if the second JVM died. */
    private void await(java.util.function.BooleanSupplier condition, Duration max, String what)
            throws InterruptedException {
        RedisServers.awaitTrue(
                () -> {
                    if (!other.isAlive()) {
                        throw new AssertionError("the second JVM died while waiting for " + what + ": " + readLog());
                    }
                    return condition.getAsBoolean();
                },
                max,
                what + " (second JVM: " + log + ")");
    }

    private boolean logHas(String line) {
        return readLog().lines().anyMatch(line::equals);
    }

    private String readLog() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}

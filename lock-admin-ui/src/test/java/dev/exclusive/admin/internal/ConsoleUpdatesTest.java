package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.cdi.internal.ExclusiveExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The console's update thread: the container's (from lock-cdi's {@code @ExclusiveThreads} factory), named, a daemon,
 * and gone when the application stops.
 */
class ConsoleUpdatesTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    /** A container's ManagedThreadFactory, as far as the console can tell: it records the threads it makes. */
    static final class ManagedThreads implements ThreadFactory {

        private final ThreadFactory threads = Executors.defaultThreadFactory();
        private final List<Thread> made = new CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = threads.newThread(task);
            made.add(thread);
            return thread;
        }

        List<Thread> made() {
            return List.copyOf(made);
        }
    }

    private static WeldContainer start() {
        return new Weld("updates-test")
                .disableDiscovery()
                .beanClasses(ConsoleUpdates.class)
                .addExtension(new ExclusiveExtension())
                .initialize();
    }

    /** @return the thread that told a new subscriber of a change */
    private static Thread threadThatDelivers(ConsoleUpdates updates) throws Exception {
        CompletableFuture<Thread> told = new CompletableFuture<>();
        updates.subscribe(() -> told.complete(Thread.currentThread()));
        updates.changed();
        return told.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return those of {@code threads} still alive after waiting for them up to a deadline */
    private static List<Thread> aliveAfterWaiting(List<Thread> threads) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        for (Thread thread : threads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0) {
                thread.join(left);
            }
        }
        return threads.stream().filter(Thread::isAlive).toList();
    }

    @AfterEach
    void forgetNaming() {
        FakeNaming.uninstall();
    }

    @Test
    void inAContainerTheUpdatesRunOnAThreadOfItsManagedThreadFactory() throws Exception {
        ManagedThreads managed = new ManagedThreads();
        FakeNaming.install(Map.of("java:comp/DefaultManagedThreadFactory", managed));
        Thread delivered;
        try (WeldContainer container = start()) {
            List<String> atStart =
                    List.of("java:app/AppName", "java:module/ModuleName", "java:comp/DefaultManagedThreadFactory");
            assertThat(FakeNaming.lookups())
                    .as("looked up as the application starts, before any user's request (after lock-cdi asked for"
                            + " the application's name)")
                    .containsExactlyElementsOf(atStart);

            delivered =
                    threadThatDelivers(container.select(ConsoleUpdates.class).get());

            assertThat(FakeNaming.lookups())
                    .as("not looked up again when the thread is made")
                    .containsExactlyElementsOf(atStart);
            assertThat(managed.made()).containsExactly(delivered);
            assertThat(delivered.getName()).isEqualTo("exclusive-console-updates");
            assertThat(delivered.isDaemon()).isTrue();
        }

        assertThat(aliveAfterWaiting(managed.made()))
                .as("stopped with the application")
                .isEmpty();
    }

    @Test
    void outsideAContainerTheUpdatesRunOnANamedDaemonThreadThatStopsWithTheApplication() throws Exception {
        Thread delivered;
        try (WeldContainer container = start()) {
            delivered =
                    threadThatDelivers(container.select(ConsoleUpdates.class).get());

            assertThat(delivered.getName()).isEqualTo("exclusive-console-updates");
            assertThat(delivered.isDaemon()).isTrue();
        }

        assertThat(aliveAfterWaiting(List.of(delivered))).isEmpty();
    }

    @Test
    void afterTheApplicationStoppedAChangeStartsNoThread() throws Exception {
        ManagedThreads managed = new ManagedThreads();
        ConsoleUpdates updates = new ConsoleUpdates(managed);
        threadThatDelivers(updates);
        updates.close();
        updates.subscribe(() -> {});

        updates.changed();

        assertThat(managed.made()).hasSize(1);
        assertThat(aliveAfterWaiting(managed.made())).isEmpty();
    }
}

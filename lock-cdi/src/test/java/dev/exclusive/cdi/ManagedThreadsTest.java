package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The background threads of the registry (lease renewal) and of the stores come from the container's
 * {@code ManagedThreadFactory} ({@code java:comp/DefaultManagedThreadFactory}) when there is one, else from plain
 * Java SE threads; either way they are named {@code exclusive-...}, daemons, and stopped when the container shuts
 * down.
 */
class ManagedThreadsTest {

    /** A container's managed thread factory, as far as the test can tell: it counts what it makes. */
    static final class ManagedThreadFactory implements ThreadFactory {
        final List<Thread> made = new CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = Executors.defaultThreadFactory().newThread(task);
            made.add(thread);
            return thread;
        }
    }

    @ApplicationScoped
    static class Exports {
        /** Runs long enough for a renewal: the renewal thread exists while it runs. */
        @Exclusive(value = "export", ttl = 200, unit = ChronoUnit.MILLIS, autoExtend = true)
        public List<Thread> export() {
            return awaitThreads("exclusive-renewal-");
        }
    }

    private static final Map<String, String> PROBE_STORE =
            Map.of("exclusive.store.shared.type", "probe", "exclusive.store.shared.id", "threads");

    static List<Thread> liveThreads(String namePrefix) {
        Set<Thread> all = Thread.getAllStackTraces().keySet();
        return all.stream()
                .filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith(namePrefix))
                .toList();
    }

    static List<Thread> awaitThreads(String namePrefix) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Thread> found = liveThreads(namePrefix);
        while (found.isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
            found = liveThreads(namePrefix);
        }
        return found;
    }

    static void awaitStopped(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(thread.isAlive()).as(thread.getName() + " alive").isFalse();
        }
    }

    @Test
    void inJavaSeTheThreadsArePlainNamedDaemonsThatStopWithTheContainer() throws InterruptedException {
        List<Thread> renewal;
        try (Deployment deployment = Deployment.start(PROBE_STORE, Exports.class)) {
            renewal = deployment.select(Exports.class).export();

            assertThat(renewal).extracting(Thread::getName).containsExactly("exclusive-renewal-shared");
            assertThat(renewal).allMatch(Thread::isDaemon);
            Thread fromStoreFactory =
                    ProbeLockStoreProvider.INSTANCES.get("threads").threads.newThread(() -> {});
            assertThat(fromStoreFactory).isNotNull();
        }
        awaitStopped(renewal);
    }

    @Test
    void inAContainerTheRegistryAndTheStoresGetTheContainersManagedThreadFactory() throws InterruptedException {
        ManagedThreadFactory managed = new ManagedThreadFactory();
        List<Thread> renewal;
        FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:comp/DefaultManagedThreadFactory", managed));
        try (Deployment deployment = Deployment.start(PROBE_STORE, Exports.class)) {
            renewal = deployment.select(Exports.class).export();

            assertThat(renewal).extracting(Thread::getName).containsExactly("exclusive-renewal-shared");
            assertThat(managed.made).as("made by the managed factory").containsAll(renewal);
            assertThat(renewal).allMatch(Thread::isDaemon);

            ThreadFactory storeThreads = ProbeLockStoreProvider.INSTANCES.get("threads").threads;
            Thread storeThread = storeThreads.newThread(() -> {});
            assertThat(managed.made)
                    .as("the store's threads come from the managed factory")
                    .contains(storeThread);
        } finally {
            jndi.close();
        }
        awaitStopped(renewal);
    }

    @Test
    void theManagedThreadFactoryIsLookedUpAsTheApplicationStartsNotOnTheFirstCallThatNeedsAThread() {
        ManagedThreadFactory managed = new ManagedThreadFactory();
        try (FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:comp/DefaultManagedThreadFactory", managed));
                Deployment deployment = Deployment.start(PROBE_STORE, Exports.class)) {
            assertThat(FakeJndi.LOOKUPS)
                    .as("looked up as the application starts, before any call")
                    .containsOnlyOnce("java:comp/DefaultManagedThreadFactory");
            assertThat(managed.made).as("no thread made yet").isEmpty();

            deployment.select(Exports.class).export();

            assertThat(FakeJndi.LOOKUPS)
                    .as("not looked up again by the call that needed a thread")
                    .containsOnlyOnce("java:comp/DefaultManagedThreadFactory");
            assertThat(managed.made).isNotEmpty();
        }
    }

    @Test
    void theFactoryOfExclusivesThreadsIsABeanForTheApplicationToo() {
        ManagedThreadFactory managed = new ManagedThreadFactory();
        try (FakeJndi.Installed jndi = FakeJndi.install(Map.of("java:comp/DefaultManagedThreadFactory", managed));
                Deployment deployment = Deployment.start(PROBE_STORE)) {
            ThreadFactory threads = deployment.select(ThreadFactory.class, ExclusiveThreads.Literal.INSTANCE);
            Thread thread = threads.newThread(() -> {});

            assertThat(managed.made).containsExactly(thread);
        }
    }

    @Test
    void withoutANamingContextTheFactoryOfExclusivesThreadsMakesPlainThreads() {
        try (Deployment deployment = Deployment.start(PROBE_STORE)) {
            ThreadFactory threads = deployment.select(ThreadFactory.class, ExclusiveThreads.Literal.INSTANCE);
            Thread thread = threads.newThread(() -> {});

            assertThat(thread.getName())
                    .as("Executors.defaultThreadFactory()'s")
                    .startsWith("pool-");
            assertThat(thread.isDaemon())
                    .as("unnamed and not a daemon until NamedThreads makes it one")
                    .isFalse();
        }
    }
}

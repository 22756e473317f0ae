package dev.exclusive.spi;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the background work of a registry or a store (lease renewal, a release subscriber): named, daemon,
 * and made by a factory the application chooses. In Java SE that is {@link Executors#defaultThreadFactory()};
 * inside a Jakarta EE server, lock-cdi passes the container's {@code ManagedThreadFactory}, so the threads carry
 * the application's context and the server knows about them.
 *
 * <p>Thread-safe.
 */
public final class NamedThreads implements ThreadFactory {

    private final ThreadFactory base;
    private final String name;
    private final AtomicInteger count = new AtomicInteger();

    private NamedThreads(ThreadFactory base, String name) {
        this.base = Objects.requireNonNull(base, "base");
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * @param base where threads come from; {@code null} for {@link Executors#defaultThreadFactory()}
     * @param name the threads' name; a second thread gets {@code name-2}, and so on
     * @return a factory of daemon threads with that name
     */
    public static NamedThreads of(ThreadFactory base, String name) {
        return new NamedThreads(base == null ? Executors.defaultThreadFactory() : base, name);
    }

    /** @return the factory threads come from */
    public ThreadFactory base() {
        return base;
    }

    /**
     * @param task what the thread runs
     * @return a new, unstarted daemon thread named after this factory
     * @throws IllegalStateException if the base factory refuses (a container that is shutting down)
     */
    @Override
    public Thread newThread(Runnable task) {
        Thread thread = base.newThread(task);
        if (thread == null) {
            throw new IllegalStateException("Thread factory " + base + " refused to create thread '" + name + "'");
        }
        int number = count.incrementAndGet();
        try {
            thread.setName(number == 1 ? name : name + "-" + number);
            thread.setDaemon(true);
        } catch (SecurityException | IllegalStateException e) {
            // A container's managed thread may refuse renaming: it keeps the container's name then.
        }
        return thread;
    }

    @Override
    public String toString() {
        return "NamedThreads[" + name + " from " + base + "]";
    }
}

package dev.exclusive.cdi.internal;

import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;

/**
 * Where the background threads of the registry (lease renewal), of the stores and of the lock console come from:
 * the container's Jakarta Concurrency {@code ManagedThreadFactory} when there is one, so that a server knows the
 * threads and gives them the application's context; else plain Java SE threads. The registry and the stores name
 * them ({@code exclusive-...}), make them daemons and stop them when the registry closes at shutdown. It is the
 * {@link dev.exclusive.cdi.ExclusiveThreads @ExclusiveThreads} bean.
 *
 * <p>The factory is looked up as the application starts ({@link ExclusiveExtension} observes
 * {@code @Initialized(ApplicationScoped.class)}), not at deployment, where a server may not have bound
 * {@code java:comp} yet, and not on the first call that needs a thread, which may serve a user: a managed thread
 * runs with the context of whoever looked its factory up, security identity included. Order: JNDI
 * {@value #JNDI_NAME}, then a CDI bean of type {@code ManagedThreadFactory} once the container has started. Without
 * any JNDI provider (Java SE) the lookup is not repeated; while none is found otherwise, threads are plain and the
 * next thread asks again. The type is only named, never linked, so lock-cdi runs without the Concurrency API.
 */
final class ContainerThreads implements ThreadFactory {

    static final String JNDI_NAME = "java:comp/DefaultManagedThreadFactory";
    private static final String MANAGED_TYPE = "jakarta.enterprise.concurrent.ManagedThreadFactory";
    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    private final ClassLoader loader;
    private final AtomicBoolean reported = new AtomicBoolean();
    private volatile BeanManager beanManager;
    private volatile ThreadFactory managed;
    private volatile boolean noJndi;

    ContainerThreads(ClassLoader loader) {
        this.loader = loader;
    }

    /** From now on a CDI bean of type {@code ManagedThreadFactory} may be asked for, too. */
    void containerStarted(BeanManager started) {
        this.beanManager = started;
    }

    @Override
    public Thread newThread(Runnable task) {
        ThreadFactory found = managed();
        return (found != null ? found : Executors.defaultThreadFactory()).newThread(task);
    }

    /** @return the container's managed thread factory, or {@code null} if none is found (yet) */
    ThreadFactory managed() {
        ThreadFactory found = managed;
        if (found == null) {
            synchronized (this) {
                found = managed;
                if (found == null) {
                    found = fromJndi();
                    if (found == null) {
                        found = fromCdi();
                    }
                    managed = found;
                    if (found == null && reported.compareAndSet(false, true)) {
                        report();
                    }
                }
            }
        }
        return found;
    }

    /** At {@code DEBUG}: Java SE and a plain servlet container run this way on purpose. */
    private void report() {
        LOG.log(
                Level.DEBUG,
                "No Jakarta Concurrency ManagedThreadFactory ({0} or a CDI bean): Exclusive''s background threads"
                        + " are plain threads; in a server, enable Jakarta Concurrency (on Open Liberty: feature"
                        + " concurrent-3.0) for threads the server manages",
                JNDI_NAME);
    }

    private ThreadFactory fromJndi() {
        if (noJndi) {
            return null;
        }
        try {
            InitialContext context = new InitialContext();
            try {
                Object found = context.lookup(JNDI_NAME);
                if (found instanceof ThreadFactory factory) {
                    return factory;
                }
                LOG.log(
                        Level.INFO,
                        "{0} is a {1}, not a thread factory: Exclusive''s background threads do not use it",
                        JNDI_NAME,
                        found == null ? "null" : found.getClass().getName());
                return null;
            } finally {
                context.close();
            }
        } catch (NoInitialContextException e) {
            noJndi = true; // Java SE: there is no JNDI to ask, now or later
            return null;
        } catch (NamingException | RuntimeException e) {
            return null; // not bound, or not from this thread: asked again for the next thread
        }
    }

    private ThreadFactory fromCdi() {
        BeanManager container = beanManager;
        if (container == null) {
            return null;
        }
        try {
            Class<?> type = Class.forName(MANAGED_TYPE, false, loader);
            Set<Bean<?>> beans = container.getBeans(type);
            if (beans.isEmpty()) {
                return null;
            }
            Bean<?> bean = container.resolve(beans);
            return bean == null
                    ? null
                    : (ThreadFactory) container.getReference(bean, type, container.createCreationalContext(bean));
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        ThreadFactory found = managed;
        return found != null ? "container threads from " + found : "container threads (none found yet: plain)";
    }
}

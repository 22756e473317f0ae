package dev.exclusive.admin.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.ThreadFactory;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;

/**
 * The container's default {@code ManagedThreadFactory} (Jakarta Concurrency), for the console's own threads. Typed
 * as the {@link ThreadFactory} it extends, so that the Concurrency API need not be visible to the application (on
 * Open Liberty it is only with feature concurrent).
 */
final class ContainerThreads {

    static final String DEFAULT_MANAGED_THREAD_FACTORY = "java:comp/DefaultManagedThreadFactory";

    private static final System.Logger LOG = System.getLogger(ContainerThreads.class.getName());

    private ContainerThreads() {}

    /**
     * Looks the factory up. A managed thread runs with the context of the thread that looked its factory up
     * (Jakarta Concurrency; on Open Liberty the security identity too), so call this where no user's request runs.
     *
     * @return the container's factory; {@code null} outside a container, or when it has none
     */
    static ThreadFactory managedThreadFactory() {
        try {
            InitialContext naming = new InitialContext();
            try {
                Object found = naming.lookup(DEFAULT_MANAGED_THREAD_FACTORY);
                if (found instanceof ThreadFactory factory) {
                    return factory;
                }
                LOG.log(
                        Level.INFO,
                        "{0} is a {1}, not a thread factory: the lock console uses threads of its own",
                        DEFAULT_MANAGED_THREAD_FACTORY,
                        found == null ? "null" : found.getClass().getName());
                return null;
            } finally {
                naming.close();
            }
        } catch (NoInitialContextException outsideContainer) {
            LOG.log(Level.DEBUG, "No naming context: the lock console uses threads of its own");
            return null;
        } catch (NamingException | RuntimeException notBound) {
            LOG.log(
                    Level.INFO,
                    "No {0} ({1}): the lock console uses threads of its own; enable Jakarta Concurrency (on Open"
                            + " Liberty: feature concurrent-3.0) for threads the server manages",
                    DEFAULT_MANAGED_THREAD_FACTORY,
                    notBound.toString());
            return null;
        }
    }
}

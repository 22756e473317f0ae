package dev.exclusive.cdi;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Selects the {@link java.util.concurrent.ThreadFactory} that Exclusive's background threads come from (lease
 * renewal, the stores' threads): {@code @Inject @ExclusiveThreads ThreadFactory threads;}. Inject it for background
 * work of your own that should run as Exclusive's does, such as a {@code LockRegistry} you build yourself
 * ({@code LockRegistry.builder().threadFactory(threads)}).
 *
 * <p>Inside a Jakarta EE server its threads come from the container's Jakarta Concurrency
 * {@code ManagedThreadFactory}: JNDI {@code java:comp/DefaultManagedThreadFactory}, else a CDI bean of that type. It
 * is looked up as the application starts ({@code @Initialized(ApplicationScoped.class)}), on a thread that serves no
 * user: a managed thread runs with the context, security identity included, of whoever looked its factory up. If
 * none is found then, it is looked up again when a thread is needed. Outside a container (Java SE, no naming
 * context) its threads are plain threads, and it never asks again.
 *
 * <p>The threads it makes are neither named nor daemons; wrap it in {@code dev.exclusive.spi.NamedThreads} for
 * that. One factory serves the whole application; it is thread-safe.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface ExclusiveThreads {

    /** An instance of {@link ExclusiveThreads}, for {@code Instance.select} and synthetic beans. */
    final class Literal extends AnnotationLiteral<ExclusiveThreads> implements ExclusiveThreads {

        private static final long serialVersionUID = 1L;

        /** The one instance. */
        public static final Literal INSTANCE = new Literal();

        private Literal() {}
    }
}

package dev.exclusive.cdi.internal;

import dev.exclusive.cdi.Exclusive;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * The {@code @Exclusive} interceptor: a lookup of the plan for the bean class and method, and a call; everything
 * else was resolved at deployment.
 *
 * <p>Its priority, {@value #PRIORITY} ({@code PLATFORM_BEFORE + 100}), puts it outside the {@code @Transactional}
 * interceptor ({@code PLATFORM_BEFORE + 200}) and every library and application interceptor: the lock is taken
 * before a transaction begins and released after it ends.
 */
@Exclusive
@Interceptor
@Priority(ExclusiveInterceptor.PRIORITY)
public class ExclusiveInterceptor {

    /** {@code Interceptor.Priority.PLATFORM_BEFORE + 100}: before {@code @Transactional} at +200. */
    public static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    private final ExclusiveExtension extension;

    @Inject
    public ExclusiveInterceptor(ExclusiveExtension extension) {
        this.extension = extension;
    }

    @AroundInvoke
    public Object lock(InvocationContext context) throws Exception {
        return extension.invocations().invoke(context);
    }

    /**
     * EJB timer callbacks ({@code @Schedule}, {@code @Timeout}) pass through {@code @AroundTimeout} only, never
     * {@code @AroundInvoke}: without this, {@code @Schedule @Exclusive} would run on every server.
     */
    @AroundTimeout
    public Object lockTimeout(InvocationContext context) throws Exception {
        return extension.invocations().invoke(context);
    }
}

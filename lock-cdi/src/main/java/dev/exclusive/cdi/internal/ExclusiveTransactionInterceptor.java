package dev.exclusive.cdi.internal;

import dev.exclusive.cdi.Exclusive;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * The inner half of {@code @Exclusive}, for {@code onLost = ROLLBACK} inside JTA transactions; every other call
 * passes through after one thread-local read.
 *
 * <p>{@link ExclusiveInterceptor} runs outside {@code @Transactional} so that the lock is taken before the
 * transaction begins; but then it never sees a transaction that {@code @Transactional} begins for the method, which
 * has committed by the time the call returns to it. At {@value #PRIORITY} ({@code PLATFORM_BEFORE + 210}), just
 * inside {@code @Transactional} (+200), this one runs in the method's transaction whoever began it (that
 * interceptor, an EJB container, the caller): there it has the transaction check the hold before it commits, and
 * checks the hold itself when the method returns, while the transaction can still be rolled back.
 */
@Exclusive
@Interceptor
@Priority(ExclusiveTransactionInterceptor.PRIORITY)
public class ExclusiveTransactionInterceptor {

    /** {@code Interceptor.Priority.PLATFORM_BEFORE + 210}: inside {@code @Transactional} at +200. */
    public static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 210;

    private final ExclusiveExtension extension;

    @Inject
    public ExclusiveTransactionInterceptor(ExclusiveExtension extension) {
        this.extension = extension;
    }

    @AroundInvoke
    public Object guard(InvocationContext context) throws Exception {
        return extension.invocations().invokeInTransaction(context);
    }

    /** EJB timer callbacks in a container-managed transaction pass through here, as through the outer half. */
    @AroundTimeout
    public Object guardTimeout(InvocationContext context) throws Exception {
        return extension.invocations().invokeInTransaction(context);
    }
}

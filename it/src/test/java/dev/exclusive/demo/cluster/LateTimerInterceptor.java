package dev.exclusive.demo.cluster;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Outside {@code @Exclusive} (priority {@code PLATFORM_BEFORE}, below its +100): notes which tick fired, then waits
 * this server's configured skew ({@code it.tick.delay-millis}) before the lock is tried. The tick is taken when the
 * timer fires, before the wait, so both servers name a tick alike however late either one gets to the lock.
 */
@FiresLate
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE)
public class LateTimerInterceptor {

    private static final ThreadLocal<Long> TICK = new ThreadLocal<>();

    /** @return the tick the timer on this thread fired for */
    static long tick() {
        Long tick = TICK.get();
        if (tick == null) {
            throw new IllegalStateException("not on a timer thread that LateTimerInterceptor saw");
        }
        return tick;
    }

    @AroundTimeout
    Object fireLate(InvocationContext context) throws Exception {
        // A timer may fire a little early or up to a second and a half late and still name the same tick.
        TICK.set(Math.floorDiv(System.currentTimeMillis() + 250, TickTimer.PERIOD_MILLIS));
        try {
            Thread.sleep(ConfigProvider.getConfig()
                    .getOptionalValue("it.tick.delay-millis", Long.class)
                    .orElse(0L)); // the skew itself
            return context.proceed();
        } finally {
            TICK.remove();
        }
    }
}

package dev.exclusive.demo.cluster;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The timer of this "server" fires late: {@link LateTimerInterceptor} waits {@code it.tick.delay-millis} before the
 * timeout method runs, outside {@code @Exclusive}, as a timer on a server whose clock or scheduler lags would.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface FiresLate {}

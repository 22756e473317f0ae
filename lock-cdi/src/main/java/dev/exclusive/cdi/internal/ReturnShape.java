package dev.exclusive.cdi.internal;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a method returns: synchronously, or through a {@code CompletionStage} whose completion ends the hold; and
 * what {@code onBusy = SKIP} returns instead of running it.
 *
 * @param stage         the method returns a {@code CompletionStage}
 * @param wrapsStage    the interceptor may hand back the stage that completes after the release (the declared type
 *                      is {@code CompletionStage} or {@code CompletableFuture}), not only the method's own stage
 * @param skipValue     what a skipped synchronous call returns; for a stage, the value it completes with
 */
record ReturnShape(boolean stage, boolean wrapsStage, Object skipValue) {

    static ReturnShape of(Method method) {
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type)) {
            boolean wraps = type.isAssignableFrom(CompletableFuture.class);
            return new ReturnShape(true, wraps, skipValueOf(firstTypeArgument(method.getGenericReturnType())));
        }
        return new ReturnShape(false, false, skipValueOf(type));
    }

    /** @return what SKIP returns now: the skip value, or a completed stage holding it */
    Object skipped() {
        return stage ? CompletableFuture.completedFuture(skipValue) : skipValue;
    }

    private static Class<?> firstTypeArgument(Type type) {
        if (type instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments()[0] instanceof Class<?> argument) {
            return argument;
        }
        if (type instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments()[0] instanceof ParameterizedType nested
                && nested.getRawType() instanceof Class<?> raw) {
            return raw;
        }
        return Object.class;
    }

    static Object skipValueOf(Class<?> type) {
        if (type == boolean.class || type == Boolean.class) {
            return Boolean.FALSE;
        }
        if (type == int.class || type == Integer.class) {
            return 0;
        }
        if (type == long.class || type == Long.class) {
            return 0L;
        }
        if (type == double.class || type == Double.class) {
            return 0d;
        }
        if (type == float.class || type == Float.class) {
            return 0f;
        }
        if (type == short.class || type == Short.class) {
            return (short) 0;
        }
        if (type == byte.class || type == Byte.class) {
            return (byte) 0;
        }
        if (type == char.class || type == Character.class) {
            return '\0';
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == OptionalInt.class) {
            return OptionalInt.empty();
        }
        if (type == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        return null;
    }
}

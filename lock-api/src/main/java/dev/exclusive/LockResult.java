package dev.exclusive;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What running work under a lock gave: either the lock was acquired and the work ran (its result, possibly
 * {@code null}), or the lock was busy and the work did not run. Immutable.
 *
 * @param <T> the work's result type
 */
public final class LockResult<T> {

    private static final LockResult<?> NOT_ACQUIRED = new LockResult<>(false, null);

    private final boolean acquired;
    private final T value;

    private LockResult(boolean acquired, T value) {
        this.acquired = acquired;
        this.value = value;
    }

    /**
     * @param value the work's result, possibly {@code null}
     * @param <T>   the result type
     * @return a result for work that ran
     */
    public static <T> LockResult<T> of(T value) {
        return new LockResult<>(true, value);
    }

    /**
     * @param <T> the result type
     * @return the result for work that did not run because the lock was busy
     */
    @SuppressWarnings("unchecked")
    public static <T> LockResult<T> notAcquired() {
        return (LockResult<T>) NOT_ACQUIRED;
    }

    /** @return {@code true} if the lock was acquired and the work ran */
    public boolean acquired() {
        return acquired;
    }

    /**
     * @return the work's result, possibly {@code null}
     * @throws IllegalStateException if the lock was not acquired, so the work did not run
     */
    public T value() {
        if (!acquired) {
            throw new IllegalStateException("The lock was not acquired, so the work did not run and has no value");
        }
        return value;
    }

    /**
     * @param other what to return when the lock was not acquired
     * @return the work's result if it ran (even {@code null}), else {@code other}
     */
    public T orElse(T other) {
        return acquired ? value : other;
    }

    /**
     * @param other gives what to return when the lock was not acquired; called only then
     * @return the work's result if it ran, else what {@code other} gives
     */
    public T orElseGet(Supplier<? extends T> other) {
        return acquired ? value : other.get();
    }

    /**
     * @return the work's result
     * @throws NoSuchElementException if the lock was not acquired
     */
    public T orElseThrow() {
        if (!acquired) {
            throw new NoSuchElementException("The lock was not acquired, so the work did not run");
        }
        return value;
    }

    /**
     * @param exception gives the exception to throw when the lock was not acquired
     * @param <X>       its type
     * @return the work's result
     * @throws X if the lock was not acquired
     */
    public <X extends Throwable> T orElseThrow(Supplier<? extends X> exception) throws X {
        if (!acquired) {
            throw exception.get();
        }
        return value;
    }

    /** @return the work's result if it ran and is not {@code null}, else empty */
    public Optional<T> toOptional() {
        return acquired ? Optional.ofNullable(value) : Optional.empty();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockResult<?> that && acquired == that.acquired && Objects.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(acquired, value);
    }

    @Override
    public String toString() {
        return acquired ? "LockResult[acquired, value=" + value + "]" : "LockResult[not acquired]";
    }
}

package dev.exclusive.cdi;

/** What an {@link Exclusive @Exclusive} method does when its lock stays held by someone else for the whole wait. */
public enum OnBusy {

    /** Throw {@link dev.exclusive.LockBusyException}, carrying the lock, the store and when to retry. */
    THROW,

    /**
     * Do not run the method; return the return type's "nothing": {@code null} for objects, {@code false} for
     * {@code boolean}/{@code Boolean}, {@code 0} for numbers (primitive or boxed), {@code '\0'} for
     * {@code char}, {@code Optional.empty()} (and its {@code OptionalInt}/{@code Long}/{@code Double} kin), and
     * for a {@code CompletionStage<T>} a completed stage holding the "nothing" of {@code T}.
     */
    SKIP
}

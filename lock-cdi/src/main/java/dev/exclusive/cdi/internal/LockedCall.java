package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.internal.CurrentLocks;
import dev.exclusive.internal.DefaultLock;
import java.util.ArrayDeque;

/**
 * One {@code @Exclusive} call that a thread is running: the hold it runs under and how it came by it. Each thread
 * keeps its running calls on a stack, innermost first, which tells a nested call that its lock is already held.
 */
final class LockedCall {

    /** How the call came by its hold. */
    enum Kind {
        /** It acquired the lock and releases it (or leaves that to its transaction). */
        ACQUIRED,
        /** An earlier call in the same JTA transaction holds it until the transaction completes. */
        IN_TRANSACTION,
        /** A call further out on this thread holds it and is still running. */
        NESTED
    }

    private static final ThreadLocal<ArrayDeque<LockedCall>> RUNNING = new ThreadLocal<>();

    final String key;
    final Lock lock;
    final MethodPlan plan;
    final Object target;
    final Kind kind;

    /**
     * {@code OnLost.ROLLBACK} inside a transaction: the transaction checks the hold before committing, and the
     * interceptor inside it checked when the method returned, so the outer one adds no check of its own. Read and
     * written on the call's thread.
     */
    boolean guarded;

    /** The check before the commit found the hold gone and rolled the transaction back. */
    volatile boolean lostAtCompletion;

    LockedCall(String key, Lock lock, MethodPlan plan, Object target, Kind kind) {
        this.key = key;
        this.lock = lock;
        this.plan = plan;
        this.target = target;
        this.kind = kind;
    }

    /** @return the running call of this thread that holds the lock {@code key}, or {@code null} */
    static LockedCall holding(String key) {
        ArrayDeque<LockedCall> running = RUNNING.get();
        if (running != null) {
            for (LockedCall call : running) {
                if (call.key.equals(key)) {
                    return call;
                }
            }
        }
        return null;
    }

    /** @return the innermost call this thread is running, or {@code null} */
    static LockedCall innermost() {
        ArrayDeque<LockedCall> running = RUNNING.get();
        return running == null ? null : running.peek();
    }

    /**
     * Marks the start of the method's work under the hold on this thread: {@code Locks.current()} sees the lock
     * and, for the call that holds it for its whole length, {@code OnLost.INTERRUPT} knows which thread to interrupt.
     * A nested call only joins the thread's stack of locks: the outer call's work goes on after it returns.
     */
    void enter() {
        ArrayDeque<LockedCall> running = RUNNING.get();
        if (running == null) {
            running = new ArrayDeque<>(2);
            RUNNING.set(running);
        }
        running.push(this);
        if (kind != Kind.NESTED && lock instanceof DefaultLock work) {
            work.enterWork(); // DefaultLock is lock-api's one Lock; its work marks are public for this adapter
        } else {
            CurrentLocks.enter(lock);
        }
    }

    /** Marks the end of the work {@link #enter()} began, on the same thread. */
    void exit() {
        if (kind != Kind.NESTED && lock instanceof DefaultLock work) {
            work.exitWork();
        } else {
            CurrentLocks.exit(lock);
        }
        ArrayDeque<LockedCall> running = RUNNING.get();
        if (running != null) {
            running.removeFirstOccurrence(this);
            if (running.isEmpty()) {
                RUNNING.remove(); // nothing of this application stays on a pooled thread between calls
            }
        }
    }
}

package dev.exclusive.internal;

import dev.exclusive.Lock;
import java.util.ArrayDeque;

/**
 * The stack of locks whose work each thread runs, behind {@code Locks.current()}. Public for lock-cdi, whose
 * interceptor runs methods under locks without the callback forms; not API.
 */
public final class CurrentLocks {

    private static final ThreadLocal<ArrayDeque<Lock>> STACK = new ThreadLocal<>();

    private CurrentLocks() {}

    /** @param lock the lock whose work this thread starts running */
    public static void enter(Lock lock) {
        ArrayDeque<Lock> stack = STACK.get();
        if (stack == null) {
            stack = new ArrayDeque<>(2);
            STACK.set(stack);
        }
        stack.push(lock);
    }

    /** @param lock the lock whose work this thread stops running; must be the innermost */
    public static void exit(Lock lock) {
        ArrayDeque<Lock> stack = STACK.get();
        if (stack == null || stack.isEmpty()) {
            return;
        }
        stack.removeFirstOccurrence(lock);
        if (stack.isEmpty()) {
            STACK.remove();
        }
    }

    /** @return the innermost lock of this thread, or {@code null} */
    public static Lock innermost() {
        ArrayDeque<Lock> stack = STACK.get();
        return stack == null ? null : stack.peek();
    }
}

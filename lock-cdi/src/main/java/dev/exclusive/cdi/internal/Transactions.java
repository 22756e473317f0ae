package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import jakarta.enterprise.inject.spi.BeanManager;

/**
 * The JTA transaction of the calling thread, as far as holds care: a hold whose method returns inside a
 * transaction that outlives the call is released when that transaction completes, and counts as held by the
 * thread until then; under {@code OnLost.ROLLBACK} the transaction must not commit once the hold is gone. Without
 * JTA on the classpath, or without a transaction, nothing is deferred and nothing is guarded.
 */
abstract class Transactions {

    /** No JTA here: every release happens at method exit, and no transaction is there to roll back. */
    static final Transactions NONE = new Transactions() {
        @Override
        Lock heldInTransaction(String key) {
            return null;
        }

        @Override
        boolean deferRelease(String key, Lock lock) {
            return false;
        }

        @Override
        boolean active() {
            return false;
        }

        @Override
        void guard(LockedCall call) {}

        @Override
        void setRollbackOnly() {}

        @Override
        LockListener lostLeases() {
            return null;
        }
    };

    /**
     * @return JTA-aware transactions if the JTA API is present (the registry itself is found on first use: a CDI
     *         bean, else JNDI {@code java:comp/TransactionSynchronizationRegistry}), else {@link #NONE}
     */
    static Transactions resolve(BeanManager beanManager, ClassLoader loader) {
        try {
            Class.forName("jakarta.transaction.TransactionSynchronizationRegistry", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return NONE;
        }
        return new JtaTransactions(beanManager);
    }

    /**
     * @return the handle by which the current transaction holds the lock {@code key} until it completes, or
     *         {@code null}
     */
    abstract Lock heldInTransaction(String key);

    /**
     * @return {@code true} if a transaction is active and will release {@code lock} when it completes; {@code false}
     *         if the caller must release it now
     */
    abstract boolean deferRelease(String key, Lock lock);

    /** @return whether this thread runs in a transaction that has not completed (active or marked for rollback) */
    abstract boolean active();

    /**
     * Has the current transaction check {@code call}'s hold before it commits, and roll back if the hold is gone
     * (once per transaction and hold); and, if the container exposes its {@code TransactionManager}, remembers the
     * transaction so that {@link #lostLeases()} can mark it rollback-only from the renewal thread.
     */
    abstract void guard(LockedCall call);

    /** Marks the current transaction rollback-only. */
    abstract void setRollbackOnly();

    /**
     * @return a listener that marks a guarded transaction rollback-only as soon as a renewal finds its hold lost,
     *         or {@code null} if there is nothing to mark
     */
    abstract LockListener lostLeases();
}

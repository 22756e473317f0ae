package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import jakarta.enterprise.inject.spi.BeanManager;

/**
 * The JTA transaction of the calling thread, as far as holds care: a hold whose method returns inside a
 * transaction that outlives the call is released when that transaction completes, and counts as held by the
 * thread until then. Without JTA on the classpath, or without a transaction, nothing is deferred.
 */
abstract class Transactions {

    /** No JTA here: every release happens at method exit. */
    static final Transactions NONE = new Transactions() {
        @Override
        Lock heldInTransaction(String key) {
            return null;
        }

        @Override
        boolean deferRelease(String key, Lock lock) {
            return false;
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
}

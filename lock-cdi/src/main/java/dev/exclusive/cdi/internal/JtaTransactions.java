package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.LockLostException;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * {@link Transactions} over the JTA {@link TransactionSynchronizationRegistry}, and the container's
 * {@link TransactionManager} where it exposes one. Kept apart from {@link Transactions} so that nothing loads the
 * JTA API where it is absent.
 *
 * <p>Why a {@code TransactionManager}: a renewal finds a hold lost on the renewal thread, which is not the
 * transaction's; the registry only reaches the calling thread's transaction, while a {@link Transaction} captured
 * on the method's thread can be marked rollback-only from any thread. Without one, a loss is still caught by the
 * check when the method returns and the one before the commit.
 */
final class JtaTransactions extends Transactions {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");
    private static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    /**
     * Where servers bind their {@code TransactionManager}, which no specification names: Open Liberty, WildFly,
     * older JBoss, GlassFish and Payara.
     */
    private static final List<String> TRANSACTION_MANAGER_NAMES = List.of(
            "java:comp/TransactionManager",
            "java:jboss/TransactionManager",
            "java:/TransactionManager",
            "java:appserver/TransactionManager");

    /** The key under which a transaction keeps a deferred hold; a record, so no other resource can collide. */
    private record HeldLock(String key) {}

    /** The key under which a transaction notes that it checks a hold before committing. */
    private record Guarded(Lock lock) {}

    private final BeanManager beanManager;
    private volatile boolean resolved;
    private volatile TransactionSynchronizationRegistry registry;
    private volatile boolean managerResolved;
    private volatile TransactionManager manager;

    /** Guarded holds → the transaction to mark when a renewal finds the hold lost; until that transaction ends. */
    private final Map<Lock, Transaction> guarded = new ConcurrentHashMap<>();

    JtaTransactions(BeanManager beanManager) {
        this.beanManager = beanManager;
    }

    /**
     * Looked up on first use rather than at deployment, because a server's {@code java:comp} is bound to the
     * application's threads, not to container start-up.
     */
    private TransactionSynchronizationRegistry registry() {
        if (!resolved) {
            synchronized (this) {
                if (!resolved) {
                    registry = lookup();
                    resolved = true;
                }
            }
        }
        return registry;
    }

    private TransactionSynchronizationRegistry lookup() {
        if (!beanManager.getBeans(TransactionSynchronizationRegistry.class).isEmpty()) {
            return beanManager
                    .createInstance()
                    .select(TransactionSynchronizationRegistry.class)
                    .get();
        }
        try {
            return (TransactionSynchronizationRegistry) new InitialContext().lookup(JNDI_NAME);
        } catch (NamingException | RuntimeException e) {
            LOG.log(
                    Level.DEBUG,
                    "No JTA TransactionSynchronizationRegistry (CDI bean or " + JNDI_NAME
                            + "): @Exclusive releases at method exit",
                    e);
            return null;
        }
    }

    /** Looked up on first use, for the same reason as the registry; {@code null} if the container exposes none. */
    private TransactionManager manager() {
        if (!managerResolved) {
            synchronized (this) {
                if (!managerResolved) {
                    manager = lookupManager();
                    managerResolved = true;
                }
            }
        }
        return manager;
    }

    private TransactionManager lookupManager() {
        try {
            if (!beanManager.getBeans(TransactionManager.class).isEmpty()) {
                return beanManager
                        .createInstance()
                        .select(TransactionManager.class)
                        .get();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "The CDI bean of type TransactionManager could not be had; trying JNDI", e);
        }
        for (String name : TRANSACTION_MANAGER_NAMES) {
            try {
                if (new InitialContext().lookup(name) instanceof TransactionManager found) {
                    return found;
                }
            } catch (NamingException | RuntimeException e) {
                // not bound under this name: try the next
            }
        }
        LOG.log(
                Level.INFO,
                "No JTA TransactionManager (CDI bean, or JNDI " + String.join(", ", TRANSACTION_MANAGER_NAMES)
                        + "): @Exclusive(onLost = ROLLBACK) cannot mark a transaction rollback-only from the renewal"
                        + " thread the moment a renewal finds its lease lost; the hold is still checked when the"
                        + " method returns and before the transaction commits");
        return null;
    }

    @Override
    Lock heldInTransaction(String key) {
        TransactionSynchronizationRegistry transactions = registry();
        return transactions != null && transactions.getTransactionStatus() != Status.STATUS_NO_TRANSACTION
                ? (Lock) transactions.getResource(new HeldLock(key))
                : null;
    }

    @Override
    boolean deferRelease(String key, Lock lock) {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions == null) {
            return false;
        }
        int status = transactions.getTransactionStatus();
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            return false;
        }
        try {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {}

                @Override
                public void afterCompletion(int outcome) {
                    LockedInvocations.releaseNow(lock);
                }
            });
        } catch (IllegalStateException refused) {
            // a transaction marked rollback-only may refuse (Narayana does): nothing of it will commit, so the
            // release need not wait for its end, and without the synchronization nothing else would ever release
            return false;
        }
        transactions.putResource(new HeldLock(key), lock);
        return true;
    }

    @Override
    boolean active() {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions == null) {
            return false;
        }
        int status = transactions.getTransactionStatus();
        return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
    }

    @Override
    void guard(LockedCall call) {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions == null || transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            return; // none, or rolling back anyway
        }
        Guarded key = new Guarded(call.lock);
        if (transactions.getResource(key) != null) {
            return;
        }
        Transaction transaction = transaction();
        transactions.registerInterposedSynchronization(new LeaseCheck(transactions, call, transaction));
        transactions.putResource(key, Boolean.TRUE);
        if (transaction != null) {
            guarded.put(call.lock, transaction);
        }
    }

    /** @return this thread's transaction, or {@code null} if there is no {@code TransactionManager} to tell it */
    private Transaction transaction() {
        TransactionManager transactions = manager();
        if (transactions == null) {
            return null;
        }
        try {
            return transactions.getTransaction();
        } catch (SystemException | RuntimeException e) {
            LOG.log(Level.DEBUG, "The TransactionManager could not tell the current transaction", e);
            return null;
        }
    }

    @Override
    void setRollbackOnly() {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions != null) {
            transactions.setRollbackOnly();
        }
    }

    @Override
    LockListener lostLeases() {
        return new LockListener() {
            /** On the renewal thread: the guarded transaction, if any, must not commit any more. */
            @Override
            public void lost(Lock lock) {
                Transaction transaction = guarded.get(lock);
                if (transaction == null) {
                    return;
                }
                try {
                    transaction.setRollbackOnly();
                    LOG.log(
                            Level.WARNING,
                            "Lock '" + lock.name() + "' in store '" + lock.storeName() + "' was lost while its"
                                    + " transaction ran (onLost ROLLBACK): the transaction is marked rollback-only");
                } catch (IllegalStateException | SystemException e) {
                    LOG.log(Level.DEBUG, "The transaction of lock '" + lock.name() + "' completed meanwhile", e);
                }
            }

            @Override
            public String toString() {
                return "@Exclusive(onLost = ROLLBACK) transactions";
            }
        };
    }

    /**
     * Checks a hold before its transaction commits. {@code beforeCompletion} runs only for a commit, and only while
     * the transaction is still associated with the committing thread, so the registry reaches it.
     */
    private final class LeaseCheck implements Synchronization {

        private final TransactionSynchronizationRegistry transactions;
        private final LockedCall call;
        private final Transaction transaction;

        LeaseCheck(TransactionSynchronizationRegistry transactions, LockedCall call, Transaction transaction) {
            this.transactions = transactions;
            this.call = call;
            this.transaction = transaction;
        }

        /**
         * One round trip, none if the transaction rolls back anyway or the handle already knows its hold is gone.
         * The transaction is marked rollback-only, which every transaction manager honours; the exception thrown
         * after that is for the committer: Narayana, for one, makes it the cause of the {@code RollbackException}.
         */
        @Override
        public void beforeCompletion() {
            if (transactions.getTransactionStatus() == Status.STATUS_MARKED_ROLLBACK
                    || !LockedInvocations.lost(call.lock)) {
                return;
            }
            call.lostAtCompletion = true;
            transactions.setRollbackOnly();
            LockLostException lost =
                    LockedInvocations.lockLost(call, "its transaction is rolled back instead of committed", null);
            LOG.log(Level.WARNING, lost.getMessage());
            throw lost;
        }

        @Override
        public void afterCompletion(int status) {
            if (transaction != null) {
                guarded.remove(call.lock, transaction);
            }
        }
    }
}

package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.System.Logger.Level;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * {@link Transactions} over the JTA {@link TransactionSynchronizationRegistry}. Kept apart from
 * {@link Transactions} so that nothing loads the JTA API where it is absent.
 */
final class JtaTransactions extends Transactions {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");
    private static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    /** The key under which a transaction keeps a deferred hold; a record, so no other resource can collide. */
    private record HeldLock(String key) {}

    private final BeanManager beanManager;
    private volatile boolean resolved;
    private volatile TransactionSynchronizationRegistry registry;

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
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int outcome) {
                LockedInvocations.releaseNow(lock);
            }
        });
        transactions.putResource(new HeldLock(key), lock);
        return true;
    }
}

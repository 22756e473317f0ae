package dev.exclusive.demo.lost;

import dev.exclusive.Lock;
import dev.exclusive.Locks;
import dev.exclusive.OnLost;
import dev.exclusive.cdi.Exclusive;
import dev.exclusive.demo.shop.Order;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A container-managed {@code @Stateless} EJB that writes an order row (the demo's {@code orders} table, embedded H2)
 * under a lock whose lease ends while it works: an operator force-releases it (found by {@code autoExtend}'s renewal,
 * every second with a 3 s ttl), or the work outlasts a 1 s ttl. The same work under {@code ROLLBACK} and under
 * {@code LOG}. (The demo's {@code ejb-jar.xml} declares {@code LockLostException} an application exception that rolls
 * back, so the caller gets it as it is.)
 */
@Stateless
public class LeasedOrders {

    /** The product the orders are for; the tests count orders by user. */
    static final long PRODUCT = 3;

    private static final Duration LOSS_WAIT = Duration.ofSeconds(10);
    private static final Duration MARK_WAIT = Duration.ofSeconds(1);

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry transaction;

    /**
     * Writes an order, then works on until a renewal finds the hold gone.
     * @param statusWhenLost completed with the transaction's status once the loss is found
     */
    @Exclusive(value = "it:lease:rollback:{0}", ttl = 3, autoExtend = true, onLost = OnLost.ROLLBACK)
    public Order placeUntilLost(long userId, CompletableFuture<Integer> statusWhenLost) {
        Order order = place(userId);
        statusWhenLost.complete(awaitLoss());
        return order;
    }

    /** {@link #placeUntilLost} under {@code onLost = LOG}. */
    @Exclusive(value = "it:lease:log:{0}", ttl = 3, autoExtend = true)
    public Order placeUntilLostLogged(long userId, CompletableFuture<Integer> statusWhenLost) {
        Order order = place(userId);
        statusWhenLost.complete(awaitLoss());
        return order;
    }

    /** Writes an order, then works for {@code work}, longer than the 1 s ttl, with no renewal. */
    @Exclusive(value = "it:lease:expiry:{0}", ttl = 1, onLost = OnLost.ROLLBACK)
    public Order placeOutlastingTheTtl(long userId, Duration work) throws InterruptedException {
        Order order = place(userId);
        Thread.sleep(work.toMillis()); // the work itself
        return order;
    }

    /** {@link #placeOutlastingTheTtl} under {@code onLost = LOG}. */
    @Exclusive(value = "it:lease:expiry-log:{0}", ttl = 1)
    public Order placeOutlastingTheTtlLogged(long userId, Duration work) throws InterruptedException {
        Order order = place(userId);
        Thread.sleep(work.toMillis()); // the work itself
        return order;
    }

    /** @return how many orders the user has (committed ones: this runs in a transaction of its own) */
    public long orders(long userId) {
        return em.createQuery("SELECT COUNT(o) FROM ShopOrder o WHERE o.userId = :user", Long.class)
                .setParameter("user", userId)
                .getSingleResult();
    }

    /** The row is written to the database at once, inside the method's transaction. */
    private Order place(long userId) {
        Order order = new Order(PRODUCT, userId, 1, Instant.now());
        em.persist(order);
        em.flush();
        return order;
    }

    /**
     * Polls until the renewal has found the hold lost, then gives the renewal thread a moment to mark the
     * transaction (it flags the handle first, then tells the listeners).
     * @return the transaction's status then
     */
    private int awaitLoss() {
        Lock lock = Locks.assertHeld();
        long deadline = System.nanoTime() + LOSS_WAIT.toNanos();
        while (!lock.isExpired() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        long marked = System.nanoTime() + MARK_WAIT.toNanos();
        while (transaction.getTransactionStatus() == Status.STATUS_ACTIVE && System.nanoTime() < marked) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return transaction.getTransactionStatus();
    }
}

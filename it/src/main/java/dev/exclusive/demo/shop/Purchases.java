package dev.exclusive.demo.shop;

import dev.exclusive.OnLost;
import dev.exclusive.cdi.Exclusive;
import dev.exclusive.jpa.Fences;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceUnit;
import jakarta.transaction.Transactional;
import java.time.Instant;

/**
 * The double-purchase example. Two defences, each enough on its own against overselling, that do different jobs:
 * <ul>
 *   <li>the lock {@code purchase:product:{productId}} lets one purchase of a product run at a time, on every
 *       server sharing the store, so purchases queue (up to 3 s) instead of racing;</li>
 *   <li>the conditional update {@code stock = stock - q WHERE stock >= q} is the database's own guarantee: even a
 *       purchase that runs without the lock (a lease that ran out, a second application on the same tables)
 *       cannot take the stock below zero.</li>
 * </ul>
 * And two more that keep a purchase whose lease ended from committing: {@code onLost = ROLLBACK} checks the hold
 * when the method returns and before the commit, and the fenced write ({@link Fences#claim}, on the table
 * {@code exclusive_fence} of the shop's database) makes the database refuse a purchase whose lock has been taken by
 * a newer purchase since, however late its commit comes.
 */
@ApplicationScoped
public class Purchases {

    @PersistenceContext(unitName = "demo")
    private EntityManager em;

    @PersistenceUnit(unitName = "demo")
    private EntityManagerFactory shop;

    private Fences fences;

    @PostConstruct
    void fences() {
        fences = Fences.builder(shop).createTable(true).build();
    }

    /**
     * Buys {@code quantity} of a product for a user, holding the product's lock (ttl 10 s, waiting up to 3 s).
     * The first thing it writes is the product's fence ({@code product:<id>}), so a purchase whose lease has ended
     * and whose lock another purchase has taken since stops there and rolls back.
     * @return the new order
     * @throws SoldOutException        if fewer than {@code quantity} are left
     * @throws UnknownProductException if there is no such product
     * @throws dev.exclusive.LockBusyException if another purchase of the product held the lock for 3 s
     * @throws dev.exclusive.LockLostException if the lease ended before the purchase committed (a
     *                                         {@link dev.exclusive.jpa.StaleFenceException} when a newer purchase
     *                                         has claimed the product); nothing was bought
     */
    @Exclusive(value = "purchase:product:{productId}", ttl = 10, maxWait = 3, onLost = OnLost.ROLLBACK)
    @Transactional
    public Order purchase(long productId, long userId, int quantity) {
        fences.claim(em, "product:" + productId);
        return takeStock(productId, userId, quantity);
    }

    /**
     * The same purchase without the lock: only the conditional update stands between concurrent buyers and
     * overselling, and it is enough for that.
     */
    @Transactional
    public Order purchaseWithoutLock(long productId, long userId, int quantity) {
        return takeStock(productId, userId, quantity);
    }

    private Order takeStock(long productId, long userId, int quantity) {
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity must be at least 1, got " + quantity);
        }
        int updated = em.createQuery("UPDATE Product p SET p.stock = p.stock - :quantity"
                        + " WHERE p.id = :id AND p.stock >= :quantity")
                .setParameter("quantity", quantity)
                .setParameter("id", productId)
                .executeUpdate();
        if (updated == 0) {
            if (em.find(Product.class, productId) == null) {
                throw new UnknownProductException(productId);
            }
            throw new SoldOutException(productId, quantity);
        }
        Order order = new Order(productId, userId, quantity, Instant.now());
        em.persist(order);
        return order;
    }
}

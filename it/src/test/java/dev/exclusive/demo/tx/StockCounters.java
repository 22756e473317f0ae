package dev.exclusive.demo.tx;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.demo.shop.Product;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * Read-modify-write of a product's stock under {@code @Exclusive}, in a transaction: correct only if the lock is
 * released after the commit (a caller that took the lock before it would read the stock before the write).
 */
@ApplicationScoped
public class StockCounters {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Exclusive(value = "it:tx:stock:{productId}", ttl = 30, maxWait = 30)
    @Transactional
    public void addOne(long productId) {
        Product product = em.find(Product.class, productId);
        product.setStock(product.getStock() + 1);
    }

    /** Joins the caller's transaction (and must then hold the lock until it completes). */
    @Exclusive(value = "it:tx:joined:{name}", ttl = 30)
    @Transactional(Transactional.TxType.MANDATORY)
    public void touchInCallersTransaction(String name) {
        em.find(Product.class, 1L);
    }

    @Transactional
    public int stock(long productId) {
        return em.find(Product.class, productId).getStock();
    }
}

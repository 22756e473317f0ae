package dev.exclusive.demo.tx;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.demo.shop.Product;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The same read-modify-write on a {@code @Stateless} EJB: the container starts the transaction before any CDI
 * interceptor runs, so the lock must wait for the commit to be released.
 */
@Stateless
public class StatelessStockCounter {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Exclusive(value = "it:tx:stock:{productId}", ttl = 30, maxWait = 30)
    public void addOne(long productId) {
        Product product = em.find(Product.class, productId);
        product.setStock(product.getStock() + 1);
    }
}

package dev.exclusive.demo.shop;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;

/** Reads products and orders, and resets a product for another round of the demo. */
@ApplicationScoped
@Transactional
public class Catalog {

    @PersistenceContext(unitName = "demo")
    private EntityManager em;

    public List<Product> products() {
        return em.createQuery("SELECT p FROM Product p ORDER BY p.id", Product.class)
                .getResultList();
    }

    /** @throws UnknownProductException if there is no such product */
    public Product product(long productId) {
        Product product = em.find(Product.class, productId);
        if (product == null) {
            throw new UnknownProductException(productId);
        }
        return product;
    }

    /** @return how many orders the product has and how many units they took */
    public OrderSummary orders(long productId) {
        Object[] row = em.createQuery(
                        "SELECT COUNT(o), COALESCE(SUM(o.quantity), 0) FROM ShopOrder o" + " WHERE o.productId = :id",
                        Object[].class)
                .setParameter("id", productId)
                .getSingleResult();
        return new OrderSummary(productId, ((Number) row[0]).longValue(), ((Number) row[1]).longValue());
    }

    /**
     * Sets the stock and deletes the product's orders. The product's row is locked first, so that a purchase comes
     * wholly before the reset (its order deleted) or after it (taken from the new stock), as its stock update waits
     * for the row.
     * @throws UnknownProductException if there is no such product
     */
    public Product reset(long productId, int stock) {
        if (stock < 0) {
            throw new IllegalArgumentException("stock must not be negative, got " + stock);
        }
        Product product = em.find(Product.class, productId, LockModeType.PESSIMISTIC_WRITE);
        if (product == null) {
            throw new UnknownProductException(productId);
        }
        em.createQuery("DELETE FROM ShopOrder o WHERE o.productId = :id")
                .setParameter("id", productId)
                .executeUpdate();
        product.setStock(stock);
        return product;
    }

    /** How many orders a product has and the units they took. */
    public record OrderSummary(long productId, long orders, long units) {}
}

package dev.exclusive.demo.shop;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** Puts the demo's products in an empty database at startup. Leaves existing products alone. */
@Singleton
@Startup
public class ShopSeed {

    static final List<Product> PRODUCTS = List.of(
            new Product(1, "Concert ticket", 20),
            new Product(2, "Limited vinyl", 5),
            new Product(3, "Coffee beans", 100));

    @PersistenceContext(unitName = "demo")
    private EntityManager em;

    @PostConstruct
    void seed() {
        for (Product product : PRODUCTS) {
            if (em.find(Product.class, product.getId()) == null) {
                em.persist(new Product(product.getId(), product.getName(), product.getStock()));
            }
        }
    }
}

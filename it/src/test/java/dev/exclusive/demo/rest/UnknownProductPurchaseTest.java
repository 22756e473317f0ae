package dev.exclusive.demo.rest;

import static dev.exclusive.demo.shop.ShopDatabase.inject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.LockRegistry;
import dev.exclusive.demo.shop.Catalog;
import dev.exclusive.demo.shop.Purchases;
import dev.exclusive.demo.shop.ShopDatabase;
import dev.exclusive.demo.shop.UnknownProductException;
import dev.exclusive.memory.MemoryLockStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Method;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/products/{id}/purchase} of a product that does not exist answers 404 before it takes a lock or
 * writes anything: the purchase claims the product's fence first, and on H2 (the demo's shop database) a name's first
 * fence row is inserted in a transaction of its own, which the 404's rollback does not undo. Anyone could fill the
 * fence table (and the file store's folder, with the locks) one unknown id at a time.
 */
class UnknownProductPurchaseTest {

    @Test
    void aPurchaseOfAnUnknownProductLeavesNothingBehind() throws Exception {
        EntityManagerFactory shop = ShopDatabase.inMemory("unknown-product");
        try (LockRegistry locks =
                LockRegistry.builder().store("shared", new MemoryLockStore()).build()) {
            EntityManager em = shop.createEntityManager();
            ProductResource resource = new ProductResource();
            resource.catalog = inject(new Catalog(), "em", em);
            resource.purchases = inject(inject(new Purchases(), "em", em), "shop", shop);
            Method fences = Purchases.class.getDeclaredMethod("fences");
            fences.setAccessible(true);
            fences.invoke(resource.purchases);

            for (long id = 1_000_000; id < 1_000_005; id++) {
                long productId = id;
                // the lock that @Exclusive would take around Purchases.purchase, here without a container
                locks.lock("purchase:product:" + productId, Duration.ofSeconds(10))
                        .get(() -> {
                            em.getTransaction().begin();
                            try {
                                assertThatThrownBy(() -> resource.purchase(productId, 1, 1))
                                        .isInstanceOf(UnknownProductException.class);
                                assertThatThrownBy(() -> resource.purchaseWithoutLock(productId, 1, 1))
                                        .isInstanceOf(UnknownProductException.class);
                            } finally {
                                em.getTransaction().rollback();
                            }
                        });
            }

            assertThat(fenceRows(shop.createEntityManager()))
                    .as("fence rows left by 5 purchases of products that do not exist")
                    .isZero();
        } finally {
            shop.close();
        }
    }

    /** @return the rows of the fence table, which the first claim creates; 0 without it */
    private static long fenceRows(EntityManager em) {
        Number tables = (Number) em.createNativeQuery(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'EXCLUSIVE_FENCE'")
                .getSingleResult();
        return tables.longValue() == 0
                ? 0
                : ((Number) em.createNativeQuery("SELECT COUNT(*) FROM exclusive_fence")
                                .getSingleResult())
                        .longValue();
    }
}

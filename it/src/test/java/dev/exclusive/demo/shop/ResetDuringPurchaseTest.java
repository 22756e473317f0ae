package dev.exclusive.demo.shop;

import static dev.exclusive.demo.shop.ShopDatabase.inject;
import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import dev.exclusive.memory.MemoryLockStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/products/{id}/reset} sets the stock and deletes the orders while purchases may run: a purchase
 * either comes before the reset (its order deleted, the stock set) or after it (taken from the new stock), never
 * half of each. Before, the reset read the product without a lock and wrote the stock back at its commit, so a
 * purchase committed in between kept its order but lost its decrement.
 */
class ResetDuringPurchaseTest {

    @Test
    void aPurchaseDuringAResetComesWhollyBeforeOrAfterIt() throws Exception {
        EntityManagerFactory shop = ShopDatabase.inMemory("reset-race");
        try (LockRegistry locks =
                LockRegistry.builder().store("shared", new MemoryLockStore()).build()) {
            EntityManager seed = shop.createEntityManager();
            seed.getTransaction().begin();
            seed.persist(new Product(2, "Limited vinyl", 20));
            seed.getTransaction().commit();
            EntityManager resetting = shop.createEntityManager();
            Catalog catalog = inject(new Catalog(), "em", resetting);
            EntityManager buying = shop.createEntityManager();
            Purchases purchases = inject(inject(new Purchases(), "em", buying), "shop", shop);
            purchases.fences();

            resetting.getTransaction().begin();
            catalog.reset(2, 5);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread buyer = new Thread(() -> {
                try {
                    // the lock that @Exclusive takes around Purchases.purchase, here without a container
                    locks.lock("purchase:product:2", Duration.ofSeconds(10)).get(() -> {
                        buying.getTransaction().begin();
                        purchases.purchase(2, 7, 1);
                        buying.getTransaction().commit();
                    });
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            buyer.start();
            buyer.join(500); // unlocked, the purchase has committed by now; locked, it waits for the reset
            resetting.getTransaction().commit();
            buyer.join(10_000);

            assertThat(failed.get()).as("the purchase").isNull();
            EntityManager check = shop.createEntityManager();
            int stock = check.find(Product.class, 2L).getStock();
            long sold = ((Number) check.createQuery("SELECT COALESCE(SUM(o.quantity), 0) FROM ShopOrder o")
                            .getSingleResult())
                    .longValue();
            assertThat(stock + sold)
                    .as("stock (" + stock + ") + units sold (" + sold + ") after a reset to 5 and one purchase")
                    .isEqualTo(5);
        } finally {
            shop.close();
        }
    }
}

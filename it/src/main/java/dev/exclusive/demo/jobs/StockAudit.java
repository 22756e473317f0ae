package dev.exclusive.demo.jobs;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockResult;
import dev.exclusive.cdi.Store;
import dev.exclusive.demo.shop.Catalog;
import dev.exclusive.demo.shop.Product;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Audits the stock: every product's stock and the units its orders took. Its lock is a row of the same database
 * as the shop (the {@code db} store: jpa on the embedded H2), taken through the registry injected for that store;
 * a second audit waits up to 2 s for the running one, then gives up.
 */
@ApplicationScoped
public class StockAudit {

    /** How long a second audit waits for a running one. */
    static final Duration WAIT = Duration.ofSeconds(2);

    @Inject
    @Store("db")
    LockRegistry db;

    @Inject
    Catalog catalog;

    /** A finished audit and the fencing token of the hold it ran under. */
    public record Audit(
            long fence,
            String store,
            int products,
            long unitsInStock,
            long unitsSold,
            Instant startedAt,
            Instant finishedAt) {}

    /**
     * @param work how long the audit takes on top of reading the stock
     * @return the audit, or empty if another audit held the lock for the whole wait
     */
    public Optional<Audit> run(Duration work) {
        Lock lock = db.lock("stock:audit", Duration.ofMinutes(2)).purpose("StockAudit#run");
        LockResult<Audit> audit = lock.block(WAIT, () -> {
            Instant startedAt = Instant.now();
            List<Product> products = catalog.products();
            long inStock = products.stream().mapToLong(Product::getStock).sum();
            long sold = products.stream()
                    .mapToLong(product -> catalog.orders(product.getId()).units())
                    .sum();
            SimulatedWork.take(work);
            return new Audit(
                    lock.fence().orElseThrow(),
                    lock.storeName(),
                    products.size(),
                    inStock,
                    sold,
                    startedAt,
                    Instant.now());
        });
        return audit.toOptional();
    }
}

package dev.exclusive.demo.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.exclusive.LockRegistry;
import dev.exclusive.cdi.LockAcquired;
import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.shop.Catalog;
import dev.exclusive.demo.shop.Order;
import dev.exclusive.demo.shop.Purchases;
import dev.exclusive.jpa.StaleFenceException;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo's purchase with a fenced write: a purchase that took the product's lock, lost its lease before it wrote
 * anything (an operator force-released the lock), and whose product a newer purchase has claimed since, is refused
 * by the shop's database ({@code StaleFenceException} from the fence table, not a check of the hold), and nothing of
 * it commits.
 */
@ExtendWith(ArquillianExtension.class)
class StalePurchaseIT {

    private static final long PRODUCT = 2;
    private static final String LOCK = "purchase:product:" + PRODUCT;

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("stale-purchase-it.war").addClass(PurchaseGate.class);
    }

    @Inject
    Purchases purchases;

    @Inject
    Catalog catalog;

    @Inject
    LockRegistry locks;

    @Inject
    PurchaseGate gate;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    @Test
    void aPurchaseWhoseLeaseEndedIsRefusedAtTheDatabaseOnceANewerPurchaseHasClaimedTheProduct() throws Exception {
        catalog.reset(PRODUCT, 5);
        gate.pauseNext(LOCK);
        Future<Order> stale = executor.submit(() -> purchases.purchase(PRODUCT, 71, 1));
        LockAcquired staleHold = gate.awaitPaused(Duration.ofSeconds(30)); // it holds the lock, has written nothing

        assertThat(locks.forceRelease(LOCK))
                .as("the stale purchase's lease ends")
                .isTrue();
        Order newer = purchases.purchase(PRODUCT, 72, 1);
        gate.open();

        Throwable failure = catchThrowable(() -> stale.get(30, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(StaleFenceException.class);
        StaleFenceException refused = (StaleFenceException) failure.getCause();
        assertThat(refused.resource()).isEqualTo("product:" + PRODUCT);
        assertThat(refused.fence()).isEqualTo(staleHold.fence());
        assertThat(refused.currentFence()).isGreaterThan(staleHold.fence());
        assertThat(refused.lockName())
                .hasValueSatisfying(name -> assertThat(name).endsWith(LOCK));

        assertThat(newer.getUserId()).isEqualTo(72);
        assertThat(catalog.product(PRODUCT).getStock())
                .as("one unit taken, by the newer purchase")
                .isEqualTo(4);
        assertThat(catalog.orders(PRODUCT)).isEqualTo(new Catalog.OrderSummary(PRODUCT, 1, 1));
    }
}

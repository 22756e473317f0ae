package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExclusiveAttributesTest {

    record Customer(String name) {}

    record Order(long id, Customer customer) {}

    public static class Invoice {
        public String getNumber() {
            return "INV-9";
        }

        public boolean isPaid() {
            return true;
        }
    }

    @ApplicationScoped
    static class Reports {
        @Inject
        LockRegistry registry;

        List<LockInfo> live(String store) {
            return registry.store(store).liveLocks("", 10);
        }

        @Exclusive
        public List<LockInfo> byDefaultName() {
            return live("memory");
        }

        @Exclusive("report:{region}:{1}")
        public List<LockInfo> byNameAndPosition(String region, int year) {
            return live("memory");
        }

        @Exclusive("order:{order.id}:{order.customer.name}")
        public List<LockInfo> byRecordComponents(Order order) {
            return live("memory");
        }

        @Exclusive("invoice:{0.number}:{invoice.paid}")
        public List<LockInfo> byGetters(Invoice invoice) {
            return live("memory");
        }

        @Exclusive(value = "short", ttl = 1500, unit = ChronoUnit.MILLIS)
        public List<LockInfo> withTtlInMillis() {
            return live("memory");
        }

        @Exclusive(value = "elsewhere", store = "files")
        public List<LockInfo> inTheFileStore() {
            return live("files");
        }

        @Exclusive(value = "long", ttl = 300, unit = ChronoUnit.MILLIS, autoExtend = true)
        public void outlivingItsTtl(CountDownLatch finish) throws InterruptedException {
            finish.await(10, TimeUnit.SECONDS);
        }
    }

    @Exclusive(value = "whole-class", ttl = 42)
    @ApplicationScoped
    static class Nightly {
        @Inject
        LockRegistry registry;

        public List<LockInfo> export() {
            return registry.liveLocks("", 10);
        }

        @Exclusive("own-name")
        public List<LockInfo> cleanup() {
            return registry.liveLocks("", 10);
        }
    }

    @TempDir
    Path directory;

    Deployment deployment;
    Reports reports;
    LockRegistry registry;

    @BeforeEach
    void start() {
        deployment = Deployment.start(
                Map.of(
                        "exclusive.store.memory.type", "memory",
                        "exclusive.store.files.type", "file",
                        "exclusive.store.files.directory", directory.toString(),
                        "exclusive.default-store", "memory"),
                Reports.class,
                Nightly.class);
        reports = deployment.select(Reports.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void withoutValueTheLockIsNamedAfterTheDeclaringClassAndMethodAndRecordsItsPurpose() {
        List<LockInfo> held = reports.byDefaultName();

        assertThat(held).extracting(LockInfo::name).containsExactly(Reports.class.getName() + ".byDefaultName");
        assertThat(held.get(0).holder().purpose()).isEqualTo("Reports#byDefaultName");
        assertThat(registry.liveLocks("", 10)).isEmpty();
    }

    @Test
    void placeholdersNameParametersByNameAndByPosition() {
        assertThat(reports.byNameAndPosition("emea", 2026))
                .extracting(LockInfo::name)
                .containsExactly("report:emea:2026");
    }

    @Test
    void placeholdersReachRecordComponentsAndGetters() {
        assertThat(reports.byRecordComponents(new Order(17, new Customer("ada"))))
                .extracting(LockInfo::name)
                .containsExactly("order:17:ada");
        assertThat(reports.byGetters(new Invoice())).extracting(LockInfo::name).containsExactly("invoice:INV-9:true");
    }

    @Test
    void ttlAndUnitSetTheLease() {
        LockInfo held = reports.withTtlInMillis().get(0);

        assertThat(Duration.between(held.acquiredAt(), held.expiresAt()).toMillis())
                .isBetween(1400L, 1500L);
    }

    @Test
    void storeChoosesTheConfiguredStore() {
        assertThat(reports.inTheFileStore()).extracting(LockInfo::name).containsExactly("elsewhere");
        assertThat(registry.liveLocks("", 10)).isEmpty();
    }

    @Test
    void autoExtendKeepsTheLockPastItsTtlWhileTheMethodRuns() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        Thread caller = new Thread(() -> {
            try {
                reports.outlivingItsTtl(finish);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        caller.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!registry.lock("long", 1).isLocked()) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
        while (System.nanoTime() < until) {
            assertThat(registry.lock("long", 1).isLocked())
                    .as("held 3 ttls later")
                    .isTrue();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        finish.countDown();
        caller.join(5000);
        assertThat(registry.lock("long", 1).isLocked()).isFalse();
    }

    @Test
    void anAnnotationOnTheClassCoversEveryBusinessMethodAndTheMethodsOwnWins() {
        Nightly nightly = deployment.select(Nightly.class);

        LockInfo export = nightly.export().get(0);
        assertThat(export.name()).isEqualTo("whole-class");
        assertThat(Duration.between(export.acquiredAt(), export.expiresAt())).isEqualTo(Duration.ofSeconds(42));
        assertThat(nightly.cleanup()).extracting(LockInfo::name).containsExactly("own-name");
    }
}

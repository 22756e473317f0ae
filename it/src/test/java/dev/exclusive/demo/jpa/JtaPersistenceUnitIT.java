package dev.exclusive.demo.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.demo.Deployments;
import dev.exclusive.jpa.JpaLockStore;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The jpa store over a JTA persistence unit on the server (Hibernate, the XA-enlisted {@code jdbc/demo}): each lock
 * operation runs in a JTA transaction of the store's own, with the store's short timeout, and leaves the request
 * thread as it found it: outside the caller's transaction, and with the server's default timeout (120 s) for the
 * next container transaction on that thread. One unit follows JPA's rule that a JTA entity manager refuses
 * {@code getTransaction()}, as EclipseLink does; the demo's shop unit has Hibernate's defaults, which do not.
 */
@ExtendWith(ArquillianExtension.class)
class JtaPersistenceUnitIT {

    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);

    /**
     * A JTA unit that follows JPA's rule that a JTA entity manager refuses getTransaction(), as EclipseLink does.
     * Hibernate finds the server's transaction manager through {@code hibernate.transaction.jta.platform} where the
     * server does not tell it (Liberty): the build names that class in {@code it.hibernate.jta-platform}, empty on a
     * server that integrates its own Hibernate (WildFly).
     */
    private static final String COMPLIANT_UNIT = """
            <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                <persistence-unit name="locks-jta" transaction-type="JTA">
                    <provider>org.hibernate.jpa.HibernatePersistenceProvider</provider>
                    <jta-data-source>jdbc/demo</jta-data-source>
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                    <properties>
                        <property name="hibernate.jpa.compliance.transaction" value="true"/>
                        %s
                        <property name="hibernate.enhancer.enableDirtyTracking" value="false"/>
                        <property name="hibernate.enhancer.enableLazyInitialization" value="false"/>
                        <property name="hibernate.enhancer.enableAssociationManagement" value="false"/>
                    </properties>
                </persistence-unit>
            </persistence>
            """.formatted(jtaPlatform());

    private static String jtaPlatform() {
        String platform = System.getProperty("it.hibernate.jta-platform", "");
        return platform.isBlank()
                ? ""
                : "<property name=\"hibernate.transaction.jta.platform\" value=\"" + platform + "\"/>";
    }

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("jpa-jta-it.war")
                .addClass(Units.class)
                .addAsLibrary(ShrinkWrap.create(JavaArchive.class, "locks-jta-unit.jar")
                        .addAsManifestResource(new StringAsset(COMPLIANT_UNIT), "persistence.xml"));
    }

    /** The JTA persistence units, injected by the container. */
    @ApplicationScoped
    public static class Units {
        @PersistenceUnit(unitName = "locks-jta")
        EntityManagerFactory compliant;

        /** The demo's shop unit, with Hibernate's defaults. */
        @PersistenceUnit(unitName = "demo")
        EntityManagerFactory shop;

        public EntityManagerFactory compliant() {
            return compliant;
        }

        public EntityManagerFactory shop() {
            return shop;
        }
    }

    @Inject
    Units units;

    @Resource(lookup = "java:comp/UserTransaction")
    UserTransaction transaction;

    private final List<AutoCloseable> opened = new ArrayList<>();

    private LockRegistry locksOver(EntityManagerFactory factory) {
        JpaLockStore store = JpaLockStore.builder(factory)
                .storeName("jta")
                .table("exclusive_lock_jta")
                .createTable(true)
                .timeout(STORE_TIMEOUT)
                .build();
        LockRegistry locks = LockRegistry.builder().store("jta", store).build();
        opened.add(locks);
        opened.add(store);
        return locks;
    }

    @AfterEach
    void close() throws Exception {
        if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
            transaction.rollback();
        }
        for (AutoCloseable each : opened) {
            each.close();
        }
    }

    @Test
    void aTransactionBegunAfterLockOperationsOnTheSameThreadHasTheServersTimeout() throws Exception {
        Lock lock = locksOver(units.compliant()).lock("it:jta:timeout", 30);
        assertThat(lock.get()).isTrue();
        assertThat(lock.extend()).isTrue();
        assertThat(lock.release()).isTrue();

        transaction.begin();
        // Outlast the store's timeout: had it stayed on this thread, the transaction would be rolled back by now.
        Thread.sleep(STORE_TIMEOUT.multipliedBy(3).toMillis());
        assertThat(transaction.getStatus()).as("still active").isEqualTo(Status.STATUS_ACTIVE);
        transaction.commit();
    }

    @Test
    void withHibernatesDefaultsALockTakenInsideTheCallersTransactionSurvivesItsRollback() throws Exception {
        // Hibernate hands out getTransaction() on a JTA unit unless JPA transaction compliance is on, and that
        // EntityTransaction would join the caller's transaction: the store must not use it.
        LockRegistry locks = locksOver(units.shop());
        Lock lock = locks.lock("it:jta:own-transaction", 30);
        transaction.begin();
        try {
            assertThat(lock.get()).isTrue();
        } finally {
            transaction.rollback();
        }
        assertThat(lock.isLocked())
                .as("the store's own transaction committed; the caller's rollback does not undo it")
                .isTrue();
        assertThat(locks.lock("it:jta:own-transaction", 30).get()).isFalse();
        assertThat(lock.release()).isTrue();
    }
}

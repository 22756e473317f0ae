package dev.exclusive.demo.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.cdi.Store;
import dev.exclusive.demo.Deployments;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;
import jakarta.transaction.UserTransaction;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The jpa store on the server: the demo's store {@code db} keeps its locks in a table of the embedded database, and
 * every lock operation commits on its own, outside the caller's JTA transaction, so other servers see a lock before
 * the caller's work commits, and a caller's rollback does not undo it.
 */
@ExtendWith(ArquillianExtension.class)
class JpaStoreIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("jpa-it.war").addClass(LockTable.class);
    }

    /**
     * Reads the lock table through the store's own unit (RESOURCE_LOCAL over the non-JTA data source), on a
     * connection of its own, outside any transaction of the test: the same on every server, where a data source's
     * JNDI name is not. A bean, since servers inject persistence units into beans, not into the test instance.
     */
    @ApplicationScoped
    public static class LockTable {
        @PersistenceUnit(unitName = "exclusive")
        EntityManagerFactory locks;

        /** @return the owner in the row of {@code name}; {@code null} if the row is free */
        public String owner(String name) {
            EntityManager reader = locks.createEntityManager();
            try {
                List<?> owners = reader.createNativeQuery("SELECT owner FROM exclusive_lock WHERE name = ?1")
                        .setParameter(1, name)
                        .getResultList();
                assertThat(owners).as("a row for " + name).hasSize(1);
                return (String) owners.get(0);
            } finally {
                reader.close();
            }
        }
    }

    @Inject
    @Store("db")
    LockRegistry db;

    @Inject
    LockTable table;

    @Resource(lookup = "java:comp/UserTransaction")
    UserTransaction transaction;

    @Test
    void locksLiveInTheDatabaseTable() {
        Lock lock = db.lock("it:jpa:table", 30);
        assertThat(lock.get()).isTrue();
        try {
            assertThat(ownerInTable(lock.name())).isEqualTo(lock.owner());
            assertThat(db.liveLocks("it:jpa:", 10))
                    .extracting(info -> info.owner())
                    .containsExactly(lock.owner());
        } finally {
            assertThat(lock.release()).isTrue();
        }
        assertThat(ownerInTable(lock.name()))
                .as("the row stays, free, to keep the fence")
                .isNull();
    }

    @Test
    void anAcquisitionInsideTheCallersTransactionCommitsOnItsOwn() throws Exception {
        Lock lock = db.lock("it:jpa:own-transaction", 30);
        transaction.begin();
        try {
            assertThat(lock.get()).isTrue();
            assertThat(ownerInTable(lock.name()))
                    .as("visible to another connection before the caller commits")
                    .isEqualTo(lock.owner());
        } finally {
            transaction.rollback();
        }
        assertThat(lock.isLocked())
                .as("the caller's rollback does not undo the lock")
                .isTrue();
        assertThat(db.lock("it:jpa:own-transaction", 30).get()).isFalse();
        assertThat(lock.release()).isTrue();
    }

    @Test
    void fencesKeepIncreasingAcrossHolders() {
        long previous = 0;
        for (int i = 0; i < 3; i++) {
            Lock lock = db.lock("it:jpa:fence", 30);
            assertThat(lock.get()).isTrue();
            long fence = lock.fence().getAsLong();
            assertThat(fence).isGreaterThan(previous);
            previous = fence;
            assertThat(lock.release()).isTrue();
        }
    }

    private String ownerInTable(String name) {
        return table.owner(name);
    }
}

package dev.exclusive.demo.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.cdi.Store;
import dev.exclusive.demo.Deployments;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The jpa store on Liberty: the demo's store {@code db} keeps its locks in a table of the embedded database, and
 * every lock operation commits on its own, outside the caller's JTA transaction, so other servers see a lock before
 * the caller's work commits, and a caller's rollback does not undo it.
 */
@ExtendWith(ArquillianExtension.class)
class JpaStoreIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("jpa-it.war");
    }

    @Inject
    @Store("db")
    LockRegistry db;

    @Resource(lookup = "jdbc/locks")
    DataSource locks;

    @Resource(lookup = "java:comp/UserTransaction")
    UserTransaction transaction;

    @Test
    void locksLiveInTheDatabaseTable() throws SQLException {
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

    /** Reads the row through a connection of its own, outside any transaction of this test. */
    private String ownerInTable(String name) throws SQLException {
        try (Connection connection = locks.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT owner FROM exclusive_lock WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).as("a row for " + name).isTrue();
                return row.getString(1);
            }
        }
    }
}

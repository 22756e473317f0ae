package dev.exclusive.jpa;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import jakarta.transaction.TransactionManager;
import java.nio.file.Path;

/** Narayana in Java SE, standing in for a server's transaction manager in the tests of JTA units. */
final class Narayana {

    private Narayana() {}

    /** @return the transaction manager, its object store under {@code target/narayana} */
    static TransactionManager transactionManager() {
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
                .setObjectStoreDir(
                        Path.of("target", "narayana").toAbsolutePath().toString());
        return com.arjuna.ats.jta.TransactionManager.transactionManager();
    }
}

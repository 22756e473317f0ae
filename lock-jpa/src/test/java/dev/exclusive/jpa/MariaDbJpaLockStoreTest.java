package dev.exclusive.jpa;

/** The store contract and the database-store behaviours on MariaDb. */
class MariaDbJpaLockStoreTest extends AbstractJpaLockStoreTest {

    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}

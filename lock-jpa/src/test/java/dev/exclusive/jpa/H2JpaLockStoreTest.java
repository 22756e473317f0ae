package dev.exclusive.jpa;

/** The store contract and the database-store behaviours on H2. */
class H2JpaLockStoreTest extends AbstractJpaLockStoreTest {

    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}

package dev.exclusive.jpa;

/** The store contract and the database-store behaviours on Postgres. */
class PostgresJpaLockStoreTest extends AbstractJpaLockStoreTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }
}

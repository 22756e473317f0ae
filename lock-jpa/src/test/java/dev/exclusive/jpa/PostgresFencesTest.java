package dev.exclusive.jpa;

/** Fenced writes on PostgreSQL. */
class PostgresFencesTest extends AbstractFencesTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }
}

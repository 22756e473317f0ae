package dev.exclusive.jpa;

/** Fenced writes on MariaDB. */
class MariaDbFencesTest extends AbstractFencesTest {

    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}

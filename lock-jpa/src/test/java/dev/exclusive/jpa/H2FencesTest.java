package dev.exclusive.jpa;

/** Fenced writes on H2. */
class H2FencesTest extends AbstractFencesTest {

    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}

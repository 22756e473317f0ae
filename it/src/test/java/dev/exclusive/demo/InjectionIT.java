package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.cdi.Store;
import jakarta.inject.Inject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The demo's configured registries are injectable: the default store and each store by {@code @Store}. */
@ExtendWith(ArquillianExtension.class)
class InjectionIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo("injection-it.war");
    }

    @Inject
    LockRegistry registry;

    @Inject
    @Store("local")
    LockRegistry local;

    @Inject
    @Store("shared")
    LockRegistry shared;

    @Test
    void unqualifiedRegistryWorksOnTheConfiguredDefaultStore() {
        assertThat(registry.storeName()).isEqualTo("shared");
        assertThat(registry.storeNames()).contains("shared", "local");
    }

    @Test
    void storeQualifierSelectsThatStore() {
        assertThat(local.storeName()).isEqualTo("local");
        assertThat(shared.storeName()).isEqualTo("shared");
    }

    @Test
    void aLockTakenThroughOneInjectionIsBusyForAnotherOfTheSameStore() {
        Lock first = registry.lock("it:injection", 10);
        assertThat(first.get()).isTrue();
        try {
            assertThat(shared.lock("it:injection", 10).get()).isFalse();
            Lock inAnotherStore = local.lock("it:injection", 10);
            assertThat(inAnotherStore.get()).as("another store, another lock").isTrue();
            inAnotherStore.release();
        } finally {
            first.release();
        }
    }
}

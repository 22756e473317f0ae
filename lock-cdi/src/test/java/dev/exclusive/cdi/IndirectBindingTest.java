package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Stereotype;
import jakarta.inject.Inject;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code @Exclusive} reached through another annotation, as CDI resolves interceptor bindings: declared on a
 * stereotype, or on an interceptor binding of the application's own. The container intercepts such methods, so
 * the extension must plan them too; before, it saw only {@code @Exclusive} written on the class or method, and every
 * call failed with "has no plan".
 */
class IndirectBindingTest {

    @Stereotype
    @Exclusive(value = "jobs:stereotyped", ttl = 5)
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface LockedJob {}

    @InterceptorBinding
    @Exclusive(value = "jobs:nightly", ttl = 5)
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @interface Nightly {}

    @LockedJob
    @ApplicationScoped
    static class StereotypedJob {
        @Inject
        LockRegistry registry;

        public List<String> run() {
            return registry.liveLocks("", 10).stream().map(LockInfo::name).toList();
        }
    }

    @ApplicationScoped
    static class NightlyJob {
        @Inject
        LockRegistry registry;

        @Nightly
        public List<String> run() {
            return registry.liveLocks("", 10).stream().map(LockInfo::name).toList();
        }

        public List<String> unlocked() {
            return registry.liveLocks("", 10).stream().map(LockInfo::name).toList();
        }
    }

    @Test
    void aStereotypeThatCarriesExclusiveLocksItsBeansMethods() {
        try (Deployment deployment = Deployment.start(Map.of(), StereotypedJob.class)) {
            assertThat(deployment.select(StereotypedJob.class).run()).containsExactly("jobs:stereotyped");
        }
    }

    @Test
    void anInterceptorBindingThatCarriesExclusiveLocksTheMethodItIsOn() {
        try (Deployment deployment = Deployment.start(Map.of(), NightlyJob.class)) {
            NightlyJob job = deployment.select(NightlyJob.class);
            assertThat(job.run()).containsExactly("jobs:nightly");
            assertThat(job.unlocked())
                    .as("a method without it runs without a lock")
                    .isEmpty();
        }
    }
}

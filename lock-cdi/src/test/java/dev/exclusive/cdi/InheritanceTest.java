package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code @Exclusive} on class hierarchies: each bean class gets its own plan for the methods it inherits, the
 * default lock name is the bean class's, a method's own annotation wins over the class's, and MicroProfile Config
 * keys name the bean class first, then the class that declares the method.
 */
class InheritanceTest {

    /** Not a bean: the base of two jobs, each with its own class-level {@code @Exclusive}. */
    static class Job {
        @Inject
        LockRegistry registry;

        public List<LockInfo> run() {
            return registry.liveLocks("", 10);
        }

        public List<LockInfo> hold(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            finish.await(10, TimeUnit.SECONDS);
            return registry.liveLocks("", 10);
        }

        @Exclusive(value = "report", ttl = 3)
        public List<LockInfo> report() {
            return registry.liveLocks("", 10);
        }

        @Exclusive(ttl = 3)
        public List<LockInfo> cleanUp() {
            return registry.liveLocks("", 10);
        }
    }

    @Exclusive(ttl = 5)
    @ApplicationScoped
    static class JobA extends Job {}

    @Exclusive(ttl = 7)
    @ApplicationScoped
    static class JobB extends Job {}

    /** Overrides what it inherits from {@link Job}: the overriding methods carry no method-level binding. */
    @ApplicationScoped
    static class Overriding extends Job {
        @Override
        public List<LockInfo> report() {
            return registry.liveLocks("", 10);
        }

        @Override
        @Exclusive(value = "mine", ttl = 4)
        public List<LockInfo> cleanUp() {
            return registry.liveLocks("", 10);
        }
    }

    /** A class-level {@code @Exclusive} is {@code @Inherited}. */
    @Exclusive(ttl = 9)
    static class Base {
        @Inject
        LockRegistry registry;
    }

    @ApplicationScoped
    static class Child extends Base {
        public List<LockInfo> own() {
            return registry.liveLocks("", 10);
        }
    }

    private static Duration lease(LockInfo lock) {
        return Duration.between(lock.acquiredAt(), lock.expiresAt());
    }

    @Test
    void siblingSubclassesRunAnInheritedMethodUnderTheirOwnClassLevelAnnotationAndDefaultName() {
        try (Deployment deployment = Deployment.start(Map.of(), JobA.class, JobB.class)) {
            List<LockInfo> a = deployment.select(JobA.class).run();
            List<LockInfo> b = deployment.select(JobB.class).run();

            assertThat(a).extracting(LockInfo::name).containsExactly(JobA.class.getName() + ".run");
            assertThat(lease(a.get(0))).isEqualTo(Duration.ofSeconds(5));
            assertThat(a.get(0).holder().purpose()).isEqualTo("JobA#run");
            assertThat(b).extracting(LockInfo::name).containsExactly(JobB.class.getName() + ".run");
            assertThat(lease(b.get(0))).isEqualTo(Duration.ofSeconds(7));
            assertThat(b.get(0).holder().purpose()).isEqualTo("JobB#run");
        }
    }

    @Test
    void siblingSubclassesDoNotBlockEachOther() throws Exception {
        ExecutorService background = Executors.newSingleThreadExecutor();
        try (Deployment deployment = Deployment.start(Map.of(), JobA.class, JobB.class)) {
            CountDownLatch aStarted = new CountDownLatch(1);
            CountDownLatch aFinish = new CountDownLatch(1);
            Future<List<LockInfo>> a =
                    background.submit(() -> deployment.select(JobA.class).hold(aStarted, aFinish));
            assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();

            List<LockInfo> b = deployment.select(JobB.class).hold(new CountDownLatch(1), new CountDownLatch(0));

            assertThat(b)
                    .extracting(LockInfo::name)
                    .containsExactlyInAnyOrder(JobA.class.getName() + ".hold", JobB.class.getName() + ".hold");
            aFinish.countDown();
            assertThat(a.get(10, TimeUnit.SECONDS)).hasSize(1);
        } finally {
            background.shutdownNow();
        }
    }

    @Test
    void aMethodLevelAnnotationOnTheSuperclassWinsOverEachSubclassesClassLevelOne() {
        try (Deployment deployment = Deployment.start(Map.of(), JobA.class, JobB.class)) {
            List<LockInfo> a = deployment.select(JobA.class).report();
            List<LockInfo> b = deployment.select(JobB.class).report();

            assertThat(a).extracting(LockInfo::name).containsExactly("report");
            assertThat(lease(a.get(0))).isEqualTo(Duration.ofSeconds(3));
            assertThat(b).extracting(LockInfo::name).containsExactly("report");
            assertThat(lease(b.get(0))).isEqualTo(Duration.ofSeconds(3));
            assertThat(deployment.select(JobA.class).cleanUp())
                    .extracting(LockInfo::name)
                    .containsExactly(JobA.class.getName() + ".cleanUp");
            assertThat(deployment.select(JobB.class).cleanUp())
                    .extracting(LockInfo::name)
                    .containsExactly(JobB.class.getName() + ".cleanUp");
        }
    }

    @Test
    void anOverridingMethodHasOnlyItsOwnAnnotation() {
        try (Deployment deployment = Deployment.start(Map.of(), Overriding.class)) {
            Overriding overriding = deployment.select(Overriding.class);

            assertThat(overriding.report()).as("the override has no @Exclusive").isEmpty();
            List<LockInfo> mine = overriding.cleanUp();
            assertThat(mine).extracting(LockInfo::name).containsExactly("mine");
            assertThat(lease(mine.get(0))).isEqualTo(Duration.ofSeconds(4));
        }
    }

    @Test
    void aClassLevelAnnotationIsInheritedAndNamesLocksAfterTheBeanClass() {
        try (Deployment deployment = Deployment.start(Map.of(), Child.class)) {
            List<LockInfo> own = deployment.select(Child.class).own();

            assertThat(own).extracting(LockInfo::name).containsExactly(Child.class.getName() + ".own");
            assertThat(lease(own.get(0))).isEqualTo(Duration.ofSeconds(9));
        }
    }

    @Test
    void configKeysOfTheBeanClassWinOverThoseOfTheDeclaringClass() {
        Map<String, String> config = new HashMap<>();
        config.put(JobA.class.getName() + "/run/Exclusive/ttl", "11");
        config.put(Job.class.getName() + "/run/Exclusive/ttl", "13");
        config.put(Job.class.getName() + "/run/Exclusive/value", "job:run");
        try (Deployment deployment = Deployment.start(config, JobA.class, JobB.class)) {
            List<LockInfo> a = deployment.select(JobA.class).run();
            List<LockInfo> b = deployment.select(JobB.class).run();

            assertThat(a).extracting(LockInfo::name).containsExactly("job:run");
            assertThat(lease(a.get(0))).isEqualTo(Duration.ofSeconds(11));
            assertThat(b).extracting(LockInfo::name).containsExactly("job:run");
            assertThat(lease(b.get(0))).isEqualTo(Duration.ofSeconds(13));
        }
    }

    /** Holds the annotation that {@link Twice} adds to a second bean of {@link JobA}'s class. */
    @Exclusive(value = "other", ttl = 2)
    static class OtherAnnotation {}

    /** Adds {@link JobA}'s class a second time, with another {@code @Exclusive}: two beans, one class. */
    public static class Twice implements Extension {
        void addAgain(@Observes BeforeBeanDiscovery event) {
            event.addAnnotatedType(JobA.class, "second")
                    .remove(annotation -> annotation.annotationType() == Exclusive.class)
                    .add(OtherAnnotation.class.getAnnotation(Exclusive.class));
        }
    }

    @Test
    void twoBeansOfOneClassWithDifferentPlansFailTheDeployment() {
        Throwable failure = catchThrowable(() ->
                Deployment.start(Map.of(), List.of(new Twice()), JobA.class).close());

        assertThat(failure).isNotNull();
        assertThat(failure.getMessage())
                .contains("@Exclusive on " + JobA.class.getName() + "#run() (declared in " + Job.class.getName()
                        + "): two beans of class " + JobA.class.getName() + " give it different plans");
    }
}

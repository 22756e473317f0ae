package dev.exclusive.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.exclusive.Lock;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.admin.internal.ConsoleBeans;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.admin.internal.ConsoleUpdates;
import dev.exclusive.cdi.LockForceReleased;
import dev.exclusive.cdi.internal.ExclusiveExtension;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.inject.ConfigExtension;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.SecurityContext;
import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's beans in a CDI container with lock-cdi: what the application server does, in Weld SE. */
class ConsoleCdiTest {

    /** Records what lock-cdi fires when the console force-releases. */
    @ApplicationScoped
    static class AuditTrail {

        private final List<LockForceReleased> events = new CopyOnWriteArrayList<>();

        void record(@Observes LockForceReleased event) {
            events.add(event);
        }

        List<LockForceReleased> events() {
            return List.copyOf(events);
        }
    }

    /**
     * Jakarta Security's {@code SecurityContext} as a server provides it: the caller on the current thread, here set
     * by the test.
     */
    @ApplicationScoped
    static class SignedIn implements SecurityContext {

        private volatile Principal caller;
        private volatile Set<String> roles = Set.of();

        void as(String name, String... roles) {
            this.caller = () -> name;
            this.roles = Set.of(roles);
        }

        void nobody() {
            this.caller = null;
            this.roles = Set.of();
        }

        @Override
        public Principal getCallerPrincipal() {
            return caller;
        }

        @Override
        public <T extends Principal> Set<T> getPrincipalsByType(Class<T> type) {
            return caller != null && type.isInstance(caller) ? Set.of(type.cast(caller)) : Set.of();
        }

        @Override
        public boolean isCallerInRole(String role) {
            return caller != null && roles.contains(role);
        }

        @Override
        public boolean hasAccessToWebResource(String resource, String... methods) {
            return false;
        }

        @Override
        public AuthenticationStatus authenticate(
                HttpServletRequest request, HttpServletResponse response, AuthenticationParameters parameters) {
            return AuthenticationStatus.NOT_DONE;
        }
    }

    @TempDir
    Path folder;

    private SmallRyeConfig config;
    private WeldContainer container;

    @BeforeEach
    void start() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(
                        Map.of(
                                "exclusive.default-store",
                                "local",
                                "exclusive.store.local.type",
                                "memory",
                                "exclusive.store.files.type",
                                "file",
                                "exclusive.store.files.directory",
                                folder.toString(),
                                "exclusive.instance-name",
                                "node-1",
                                ConsoleSettings.ROLE,
                                "lock-ops"),
                        "test",
                        500))
                .build();
        ConfigProviderResolver.instance().registerConfig(config, loader);
        container = new Weld("console-test")
                .disableDiscovery()
                .beanClasses(
                        LockConsoleService.class,
                        LockConsoleView.class,
                        ConsoleBeans.class,
                        ConsoleUpdates.class,
                        AuditTrail.class,
                        SignedIn.class)
                .addExtension(new ExclusiveExtension())
                .addExtension(new ConfigExtension())
                .initialize();
    }

    @AfterEach
    void stop() {
        try {
            container.shutdown();
        } finally {
            ConfigProviderResolver.instance().releaseConfig(config);
        }
    }

    @Test
    void theConsoleListsEveryConfiguredStoreThroughTheInjectedRegistry() {
        LockRegistry registry = container.select(LockRegistry.class).get();
        registry.store("files").lock("imports:users", Duration.ofMinutes(1)).get();
        registry.lock("reports:daily", Duration.ofMinutes(1)).get();

        LockConsoleService service = container.select(LockConsoleService.class).get();
        List<LockInfo> locks = service.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 10);

        assertThat(service.storeNames()).containsExactly("files", "local");
        assertThat(locks)
                .extracting(LockInfo::store, LockInfo::name)
                .containsExactly(tuple("files", "imports:users"), tuple("local", "reports:daily"));
        assertThat(locks)
                .allSatisfy(lock -> assertThat(lock.holder().instance()).isEqualTo("node-1"));
    }

    @Test
    void aForceReleaseIsFiredOnceAsLockForceReleasedNamingTheCaller() {
        LockRegistry registry = container.select(LockRegistry.class).get();
        registry.lock("stuck", Duration.ofMinutes(5)).get();
        LockConsoleService service = container.select(LockConsoleService.class).get();
        LockInfo stuck =
                service.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 1).get(0);
        container.select(SignedIn.class).get().as("admin", "lock-ops");

        service.forceRelease(stuck);
        service.forceRelease(stuck);

        List<LockForceReleased> events =
                container.select(AuditTrail.class).get().events();
        assertThat(events)
                .extracting(
                        LockForceReleased::storeName,
                        LockForceReleased::lockName,
                        LockForceReleased::released,
                        LockForceReleased::principalName)
                .containsExactly(tuple("local", "stuck", true, "admin"), tuple("local", "stuck", false, "admin"));
    }

    @Test
    void theServiceAsksJakartaSecurityWhoCallsAndRefusesOthersThanTheConfiguredRole() {
        Lock held = container.select(LockRegistry.class).get().lock("stuck", Duration.ofMinutes(5));
        assertThat(held.get()).isTrue();
        LockConsoleService service = container.select(LockConsoleService.class).get();
        LockInfo stuck =
                service.read(LockFilter.all()).page(LockSort.DEFAULT, 0, 1).get(0);
        SignedIn signedIn = container.select(SignedIn.class).get();

        signedIn.as("admin", "exclusive-admin");
        assertThatThrownBy(() -> service.forceRelease(stuck))
                .as("the default role is not the configured one")
                .isInstanceOf(ForceReleaseRefusedException.class)
                .hasMessageContaining("user 'admin' is not in role 'lock-ops'");
        signedIn.nobody();
        assertThatThrownBy(() -> service.forceRelease(stuck))
                .isInstanceOfSatisfying(
                        ForceReleaseRefusedException.class,
                        refused -> assertThat(refused.signInRequired()).isTrue());

        assertThat(held.isLocked()).isTrue();
        assertThat(container.select(AuditTrail.class).get().events()).isEmpty();
    }

    @Test
    void aLockTakenInThisJvmReachesOpenConsolesOnTheirOwnThread() throws InterruptedException {
        ConsoleUpdates updates = container.select(ConsoleUpdates.class).get();
        CountDownLatch told = new CountDownLatch(1);
        List<String> threads = new CopyOnWriteArrayList<>();
        Runnable unsubscribe = updates.subscribe(() -> {
            threads.add(Thread.currentThread().getName());
            told.countDown();
        });

        container
                .select(LockRegistry.class)
                .get()
                .lock("fresh", Duration.ofMinutes(1))
                .get();

        assertThat(told.await(5, TimeUnit.SECONDS))
                .as("console told of the new lock")
                .isTrue();
        assertThat(threads).containsOnly("exclusive-console-updates");
        unsubscribe.run();
    }

    @Test
    void theViewIsABeanWithItsSettingsFromMicroProfileConfig() {
        LockConsoleView view = container.select(LockConsoleView.class).get();
        ConsoleSettings settings = container.select(ConsoleSettings.class).get();

        assertThat(view).isNotNull();
        assertThat(settings.role()).isEqualTo("lock-ops");
        assertThat(settings.route()).isEqualTo("exclusive");
    }
}

package dev.exclusive.cdi.internal;

import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.Secrets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Vetoed;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * One MicroProfile Health readiness check per store, named {@code exclusive-store-<name>}: UP when
 * {@link LockStore#ping()} answers, DOWN with the reason when it does not. Registered only when the Health API is
 * present, which is why only this class refers to it.
 *
 * <p>Why the class carries {@code @Readiness} although it is no bean ({@code @Vetoed}): Payara turns MicroProfile
 * Health on for a deployment only when its scan finds a health annotation on a class of the deployment, and the
 * checks added here are synthetic beans, which no scan sees. Without it, an application on Payara whose only checks
 * are these showed none ({@code {"status":"UP","checks":[]}}); other servers ignore the annotation here.
 */
@Readiness
@Vetoed
final class StoreHealthChecks {

    private StoreHealthChecks() {}

    static void register(AfterBeanDiscovery event, ConfiguredStores stores) {
        stores.stores()
                .forEach((name, store) -> event.<HealthCheck>addBean()
                        .id(StoreHealthChecks.class.getName() + "." + name)
                        .beanClass(StoreHealthChecks.class)
                        .types(HealthCheck.class, Object.class)
                        .qualifiers(Readiness.Literal.INSTANCE, Any.Literal.INSTANCE)
                        .scope(ApplicationScoped.class)
                        .createWith(context -> check(name, stores.type(name), store, stores.secrets(name))));
    }

    /** The reason is the store's message with its secrets masked: a store may say where it failed to connect. */
    static HealthCheck check(String storeName, String type, LockStore store, Secrets secrets) {
        return () -> {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("store", storeName);
            data.put("type", type);
            try {
                store.ping();
                return new HealthCheckResponse(
                        "exclusive-store-" + storeName, HealthCheckResponse.Status.UP, Optional.of(data));
            } catch (RuntimeException e) {
                data.put("reason", secrets.mask(e.getMessage() != null ? e.getMessage() : e.toString()));
                return new HealthCheckResponse(
                        "exclusive-store-" + storeName, HealthCheckResponse.Status.DOWN, Optional.of(data));
            }
        };
    }
}

package dev.exclusive.cdi;

import dev.exclusive.cdi.internal.ExclusiveExtension;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.inject.ConfigExtension;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * A Weld SE container with its own MicroProfile Config: the given properties, and nothing from the environment.
 * The config is registered for the test's class loader while the container runs and released at close.
 */
final class Deployment implements AutoCloseable {

    /** Weld SE needs at least one bean class when discovery is off. */
    @jakarta.enterprise.context.Dependent
    static class Anchor {}

    private final WeldContainer container;
    private final SmallRyeConfig config;

    private Deployment(WeldContainer container, SmallRyeConfig config) {
        this.container = container;
        this.config = config;
    }

    static Deployment start(Map<String, String> properties, Class<?>... beanClasses) {
        return start(properties, List.of(), beanClasses);
    }

    /** With more portable extensions than Exclusive's and SmallRye Config's. */
    static Deployment start(Map<String, String> properties, List<Extension> extensions, Class<?>... beanClasses) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "test", 500))
                .build();
        ConfigProviderResolver.instance().registerConfig(config, loader);
        try {
            Weld weld = new Weld("exclusive-test-" + UUID.randomUUID())
                    .disableDiscovery()
                    .beanClasses(beanClasses)
                    .addBeanClass(Anchor.class)
                    // with discovery off, Weld SE loads no extension from META-INF/services: add them as a server would
                    .addExtension(new ExclusiveExtension())
                    .addExtension(new ConfigExtension());
            extensions.forEach(weld::addExtension);
            return new Deployment(weld.initialize(), config);
        } catch (RuntimeException | Error e) {
            ConfigProviderResolver.instance().releaseConfig(config);
            throw e;
        }
    }

    <T> T select(Class<T> type, Annotation... qualifiers) {
        return container.select(type, qualifiers).get();
    }

    <T> T select(TypeLiteral<T> type, Annotation... qualifiers) {
        return container.select(type, qualifiers).get();
    }

    @Override
    public void close() {
        try {
            container.shutdown();
        } finally {
            ConfigProviderResolver.instance().releaseConfig(config);
        }
    }
}

package dev.exclusive.admin.internal;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Produces the console's {@link ConsoleSettings}, read once from the application's configuration, and its
 * {@link ConsoleCaller}, chosen once from what the container offers.
 */
@ApplicationScoped
public class ConsoleBeans {

    @Produces
    @Singleton
    ConsoleSettings settings() {
        return ConsoleSettings.read(ConfigProvider.getConfig());
    }

    @Produces
    @Singleton
    ConsoleCaller caller(BeanManager beans) {
        return ConsoleCaller.fromContainer(beans);
    }
}

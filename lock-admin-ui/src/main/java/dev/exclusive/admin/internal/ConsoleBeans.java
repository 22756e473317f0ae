package dev.exclusive.admin.internal;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;

/** Produces the console's {@link ConsoleSettings}, read once from the application's configuration. */
@ApplicationScoped
public class ConsoleBeans {

    @Produces
    @Singleton
    ConsoleSettings settings() {
        return ConsoleSettings.read(ConfigProvider.getConfig());
    }
}

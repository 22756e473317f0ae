package dev.exclusive.admin.internal;

import com.vaadin.flow.router.RouteConfiguration;
import com.vaadin.flow.server.ServiceInitEvent;
import com.vaadin.flow.server.startup.ApplicationRouteRegistry;
import dev.exclusive.admin.LockConsoleView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * Registers {@link LockConsoleView} at the configured path when Vaadin starts (vaadin-cdi fires
 * {@link ServiceInitEvent} as a CDI event): the path is configuration, so it cannot be a {@code @Route} value.
 */
@ApplicationScoped
public class ConsoleRoute {

    private final ConsoleSettings settings;

    /** For the container's client proxy. */
    protected ConsoleRoute() {
        this.settings = null;
    }

    @Inject
    public ConsoleRoute(ConsoleSettings settings) {
        this.settings = settings;
    }

    void register(@Observes ServiceInitEvent event) {
        ApplicationRouteRegistry registry =
                ApplicationRouteRegistry.getInstance(event.getSource().getContext());
        RouteConfiguration.forRegistry(registry).setRoute(settings.route(), LockConsoleView.class);
    }
}

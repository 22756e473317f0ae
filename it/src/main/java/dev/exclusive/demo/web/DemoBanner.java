package dev.exclusive.demo.rest;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import org.eclipse.microprofile.config.ConfigProvider;

/** Prints where to call the demo once it has started, so that {@code liberty:run} shows the URLs. */
@WebListener
public class DemoBanner implements ServletContextListener {

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String port = ConfigProvider.getConfig()
                .getOptionalValue("http.port", String.class)
                .orElse("9080");
        String server = "http://localhost:" + port;
        String app = server + event.getServletContext().getContextPath();
        System.out.println(String.join(
                System.lineSeparator(),
                "Exclusive demo is up:",
                "  REST      " + app + "/api/products   (see it/DEMO.md for every call)",
                "  console   " + app + "/exclusive",
                "  health    " + server + "/health/ready",
                "  users     admin/admin (role exclusive-admin), operator/operator (no role)"));
    }
}

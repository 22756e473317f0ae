package dev.exclusive.demo.web;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Future;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Prints where to call the demo, so that {@code liberty:run} shows the URLs — once they answer. Liberty opens its
 * HTTP port only after the applications have started, so the banner waits until the landing page answers on the
 * configured port ({@code http.port}, from {@code -Ddemo.http.port}); if it never does (another program holds the
 * port), it says so instead.
 */
@WebListener
public class DemoBanner implements ServletContextListener {

    /** How long the server may take to serve the landing page after the application started. */
    static final Duration PATIENCE = Duration.ofMinutes(3);

    private static final Duration POLL = Duration.ofMillis(250);
    /**
     * How long one look at the landing page may wait for its answer: on a busy machine an answer can take seconds
     * (Payara Micro's demo, started beside the integration tests, answered none of the looks within 2 s in 3
     * minutes, and the banner said the port was taken), and looks given up too early never see one.
     */
    static final Duration ANSWER = Duration.ofSeconds(20);

    @Resource
    ManagedExecutorService executor;

    private Future<?> announcement;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        Config config = ConfigProvider.getConfig();
        String port = config.getOptionalValue("http.port", String.class).orElse("9080");
        String server = "http://localhost:" + port;
        String app = server + event.getServletContext().getContextPath();
        // where the server serves health and how it stops, where it differs from Liberty (WildFly: configure.cli)
        String health = config.getOptionalValue("demo.health.url", String.class).orElse(server + "/health/ready");
        String stop = config.getOptionalValue("demo.stop", String.class)
                .orElse("Ctrl+C here, or mvn -B -pl it liberty:stop in another terminal");
        announcement = executor.submit(() -> announceOnceServed(app, health, stop, port));
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (announcement != null) {
            announcement.cancel(true);
        }
    }

    private static void announceOnceServed(String app, String health, String stop, String port) {
        URI landing = URI.create(app + "/");
        try {
            System.out.println(
                    servedWithin(landing, PATIENCE)
                            ? banner(app, health, stop)
                            : "The Exclusive demo started, but " + landing + " did not answer within "
                                    + PATIENCE.toMinutes() + " minutes: is port " + port + " taken by another program?"
                                    + " Stop it, or run the demo on another port with -Ddemo.http.port=9081.");
        } catch (InterruptedException e) {
            // the application is stopping before it was served: nothing to announce
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return whether the demo's landing page answered at {@code landing} within {@code patience}; a look that
     *     started in time may end up to {@link #ANSWER} later
     */
    static boolean servedWithin(URI landing, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (serves(landing)) {
                return true;
            }
            Thread.sleep(POLL.toMillis());
        }
        return false;
    }

    /**
     * @return whether the landing page (and so the application, on this port) answers. A plain connection on this
     *     thread: the JDK's {@code HttpClient} would start threads of its own, unmanaged, that outlive the look
     */
    private static boolean serves(URI landing) throws InterruptedException {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) landing.toURL().openConnection();
            connection.setConnectTimeout(1_000);
            connection.setReadTimeout((int) ANSWER.toMillis());
            if (connection.getResponseCode() != 200) {
                return false;
            }
            try (InputStream body = connection.getInputStream()) {
                return new String(body.readAllBytes(), StandardCharsets.UTF_8).contains(LandingPage.TITLE);
            }
        } catch (IOException notYet) {
            if (Thread.interrupted()) {
                throw new InterruptedException("stopped while looking at " + landing);
            }
            return false;
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
        }
    }

    static String banner(String app, String health, String stop) {
        return String.join(
                System.lineSeparator(),
                "Exclusive demo is up:",
                "  home      " + app + "/   (links to everything below)",
                "  REST      " + app + "/api/products   (see it/DEMO.md for every call)",
                "  console   " + app + "/exclusive",
                "  health    " + health,
                "  users     admin/admin (role exclusive-admin), operator/operator (no role)",
                "  stop      " + stop);
    }
}

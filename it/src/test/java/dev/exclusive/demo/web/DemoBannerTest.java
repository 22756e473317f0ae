package dev.exclusive.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The banner waits for the landing page: one that answers slowly, as on a busy machine, is still served (the banner
 * is printed), and another program's page on the port is not (the banner says the port may be taken).
 */
class DemoBannerTest {

    @Test
    void aLandingPageThatAnswersInThreeSecondsIsServed() throws Exception {
        assertThat(servedWithin(
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(3),
                        "<html><head>" + LandingPage.TITLE + "</head></html>"))
                .as("served within 10 s, each answer taking 3 s")
                .isTrue();
    }

    @Test
    void anotherProgramsPageOnThePortIsNotTheDemo() throws Exception {
        assertThat(servedWithin(
                        Duration.ofSeconds(2),
                        Duration.ZERO,
                        "<html><head><title>Something else</title></head></html>"))
                .as("a page without the demo's title")
                .isFalse();
    }

    /**
     * The banner runs in the application: it must leave no thread behind, which would keep the application's class
     * loader after undeploy (the JDK's {@code HttpClient} starts a selector thread that lives until the client is
     * collected).
     */
    @Test
    void lookingAtTheLandingPageLeavesNoThreadBehind() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        assertThat(servedWithin(Duration.ofSeconds(2), Duration.ZERO, "<html>" + LandingPage.TITLE + "</html>"))
                .isTrue();

        assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(thread -> !before.contains(thread) && thread.isAlive())
                .extracting(Thread::getName)
                .filteredOn(name -> !name.startsWith("ForkJoinPool"))
                .isEmpty();
    }

    /**
     * @return what {@link DemoBanner#servedWithin} answers within {@code patience} for a server on a free loopback
     *     port that answers every request with {@code body} after {@code delay}; the server and its threads are
     *     stopped afterwards
     */
    private static boolean servedWithin(Duration patience, Duration delay, String body)
            throws IOException, InterruptedException {
        ExecutorService answering = Executors.newCachedThreadPool();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.setExecutor(answering);
        server.start();
        try {
            return DemoBanner.servedWithin(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/demo/"), patience);
        } finally {
            server.stop(0);
            answering.shutdownNow();
            answering.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}

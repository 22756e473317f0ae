package dev.exclusive.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Servers of two vendors exclude each other: the same WAR runs on Open Liberty (deployed by Arquillian) and on
 * WildFly (dropped into its deployment folder), both on one lock folder. They increment one counter file under one
 * lock at the same time and lose no update, and a {@code @Schedule @Exclusive(onBusy = SKIP)} job that both fire
 * every 2 s (WildFly 400 ms late) runs on exactly one of them each tick.
 *
 * <p>Runs in profile wildfly's {@code cross-vendor} execution, which starts both servers first and names WildFly's
 * deployment folder and HTTP port in {@code it.wildfly.deployments} and {@code it.wildfly.url}.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class CrossVendorIT {

    private static final Path DIR = Path.of("target", "cross-vendor-it").toAbsolutePath();
    private static final Path LOCKS = DIR.resolve("locks");
    private static final String ON_WILDFLY = "cross-vendor-wildfly";
    private static final int TIMES = 200;
    private static final int TICKS = 15;
    private static final long SKEW_MILLIS = 400;
    private static final long DEPLOY_SECONDS = 180;

    @Deployment(testable = false)
    static WebArchive onLiberty() throws IOException {
        TickLog.empty(DIR);
        Files.createDirectories(LOCKS);
        return server("cross-vendor-liberty", 0);
    }

    /** One server's WAR: its own registry on the shared lock folder, under one prefix (one application). */
    private static WebArchive server(String name, long delayMillis) {
        return Deployments.slim(name + ".war", """
                        exclusive.default-store=shared
                        exclusive.store.shared.type=file
                        exclusive.store.shared.directory=%s
                        exclusive.store.shared.prefix=cross-vendor:
                        it.tick.dir=%s
                        it.tick.delay-millis=%d
                        """.formatted(LOCKS, DIR, delayMillis))
                .addClasses(TickTimer.class, FiresLate.class, LateTimerInterceptor.class)
                .addClasses(SharedCounter.class, CounterResource.class, CounterApplication.class);
    }

    @ArquillianResource
    URL liberty;

    /** Drops the WildFly WAR into the deployment scanner's folder and waits for its {@code .deployed} marker. */
    @BeforeAll
    static void deployOnWildFly() throws IOException {
        Path folder = wildflyDeployments();
        Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.deployed"));
        Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.failed"));
        // written elsewhere and moved in whole, so that the scanner never reads half a WAR
        Path staged = DIR.resolve(ON_WILDFLY + ".war");
        server(ON_WILDFLY, SKEW_MILLIS).as(ZipExporter.class).exportTo(staged.toFile(), true);
        Files.move(staged, folder.resolve(ON_WILDFLY + ".war"), StandardCopyOption.REPLACE_EXISTING);
        Path outcome = awaitMarker(folder, ".deployed", ".failed");
        assertThat(outcome.getFileName().toString())
                .as("WildFly's deployment of %s; see %s", ON_WILDFLY, outcome)
                .endsWith(".deployed");
    }

    /** Takes the WAR away; the scanner undeploys it and leaves an {@code .undeployed} marker. */
    @AfterAll
    static void undeployFromWildFly() throws IOException {
        Path folder = wildflyDeployments();
        if (Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war"))) {
            awaitMarker(folder, ".undeployed");
            Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.undeployed"));
        }
    }

    @Test
    void libertyAndWildFlyLoseNoUpdateOfOneCounterUnderOneLock() throws Exception {
        Path counter = DIR.resolve("counter.txt");
        String call = "api/it/counter?times=" + TIMES + "&file="
                + URLEncoder.encode(counter.toString(), StandardCharsets.UTF_8);
        CompletableFuture<HttpResponse<String>> onLiberty =
                CompletableFuture.supplyAsync(() -> Http.at(liberty).post(call));
        CompletableFuture<HttpResponse<String>> onWildFly =
                CompletableFuture.supplyAsync(() -> Http.at(wildfly()).post(call));

        assertThat(onLiberty.get(150, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(onWildFly.get(150, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(SharedCounter.read(counter)).isEqualTo(2L * TIMES);
    }

    @Test
    void aScheduledJobOnLibertyAndWildFlyRunsOnOneOfThemEachTick() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Map<Long, List<String>> ticks = TickLog.firedByBoth(DIR, "cross-vendor-liberty", ON_WILDFLY);
        while (ticks.size() < TICKS && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            ticks = TickLog.firedByBoth(DIR, "cross-vendor-liberty", ON_WILDFLY);
        }
        System.out.println("CrossVendorIT ticks: " + ticks);
        assertThat(ticks).as("ticks both servers fired within 90 s").hasSizeGreaterThanOrEqualTo(TICKS);
        ticks.forEach((tick, outcomes) ->
                assertThat(outcomes).as("tick %d", tick).containsExactlyInAnyOrder("ran", "skipped"));
    }

    private static URL wildfly() {
        try {
            return URI.create(System.getProperty("it.wildfly.url") + ON_WILDFLY + "/")
                    .toURL();
        } catch (IOException e) {
            throw new IllegalStateException("it.wildfly.url is not a URL: " + System.getProperty("it.wildfly.url"), e);
        }
    }

    private static Path wildflyDeployments() {
        String folder = System.getProperty("it.wildfly.deployments");
        if (folder == null || folder.isBlank()) {
            throw new IllegalStateException("No it.wildfly.deployments: CrossVendorIT runs in profile wildfly's"
                    + " cross-vendor execution (mvn -B -pl it -am verify), which starts WildFly first");
        }
        return Path.of(folder);
    }

    /** @return the first of the WAR's markers to appear, within {@value #DEPLOY_SECONDS} s */
    private static Path awaitMarker(Path folder, String... suffixes) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEPLOY_SECONDS);
        while (System.nanoTime() < deadline) {
            for (String suffix : suffixes) {
                Path marker = folder.resolve(ON_WILDFLY + ".war" + suffix);
                if (Files.exists(marker)) {
                    return marker;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
        }
        throw new IllegalStateException("WildFly's deployment scanner wrote none of " + List.of(suffixes) + " for "
                + ON_WILDFLY + ".war in " + folder + " within " + DEPLOY_SECONDS + " s; see its server.log");
    }
}

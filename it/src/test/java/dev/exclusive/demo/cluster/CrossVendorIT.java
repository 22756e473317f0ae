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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Servers of different vendors exclude each other: the same WAR runs on Open Liberty (deployed by Arquillian), on
 * WildFly (dropped into its deployment folder) and, when profile payara is on, on Payara Server (deployed with its
 * asadmin), all on one lock folder. At the same time they increment one counter file under one lock and lose no
 * update; 50 buyers spread over them buy from a stock of 20 kept in a file under {@code @Exclusive} and exactly 20
 * get one; and a {@code @Schedule @Exclusive(onBusy = SKIP)} job that all of them fire every 2 s (Payara 200 ms
 * late, WildFly 400 ms) runs on exactly one of them each tick.
 *
 * <p>Runs in profile wildfly's {@code cross-vendor} execution, which starts the servers first and names WildFly's
 * deployment folder and HTTP port in {@code it.wildfly.deployments} and {@code it.wildfly.url}, and Payara's
 * asadmin and admin port in {@code it.payara.asadmin} and {@code it.payara.admin.port} when
 * {@code it.payara.skip} is {@code false}.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossVendorIT {

    private static final Path DIR = Path.of("target", "cross-vendor-it").toAbsolutePath();
    private static final Path LOCKS = DIR.resolve("locks");
    private static final String ON_LIBERTY = "cross-vendor-liberty";
    private static final String ON_WILDFLY = "cross-vendor-wildfly";
    private static final String ON_PAYARA = "cross-vendor-payara";
    private static final int BUYERS = 50;
    private static final int IN_STOCK = 20;
    private static final int TIMES = 200;
    private static final int TICKS = 15;
    private static final long SKEW_MILLIS = 400;
    private static final long DEPLOY_SECONDS = 180;

    @Deployment(testable = false)
    static WebArchive onLiberty() throws IOException {
        TickLog.empty(DIR);
        Files.createDirectories(LOCKS);
        return server(ON_LIBERTY, 0);
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
                .addClasses(SharedCounter.class, CounterResource.class, CounterApplication.class)
                .addClasses(SharedStock.class, StockResource.class);
    }

    @ArquillianResource
    URL liberty;

    /**
     * Drops the WildFly WAR into the deployment scanner's folder and waits for its {@code .deployed} marker; deploys
     * the Payara WAR with asadmin, which answers once it is deployed.
     */
    @BeforeAll
    static void deployOnTheOtherServers() throws IOException {
        Path folder = wildflyDeployments();
        Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.deployed"));
        Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.failed"));
        // written elsewhere and moved in whole, so that the scanner never reads half a WAR
        Path staged = DIR.resolve(ON_WILDFLY + ".war");
        server(ON_WILDFLY, SKEW_MILLIS).as(ZipExporter.class).exportTo(staged.toFile(), true);
        Files.move(staged, folder.resolve(ON_WILDFLY + ".war"), StandardCopyOption.REPLACE_EXISTING);
        if (withPayara()) {
            Path war = DIR.resolve(ON_PAYARA + ".war");
            server(ON_PAYARA, SKEW_MILLIS / 2).as(ZipExporter.class).exportTo(war.toFile(), true);
            asadmin("deploy", "--force=true", "--name", ON_PAYARA, "--contextroot", ON_PAYARA, war.toString());
        }
        Path outcome = awaitMarker(folder, ".deployed", ".failed");
        assertThat(outcome.getFileName().toString())
                .as("WildFly's deployment of %s; see %s", ON_WILDFLY, outcome)
                .endsWith(".deployed");
    }

    /** Takes the WAR away from WildFly (its scanner undeploys it and leaves an {@code .undeployed} marker) and Payara. */
    @AfterAll
    static void undeployFromTheOtherServers() throws IOException {
        if (withPayara()) {
            asadmin("undeploy", ON_PAYARA);
        }
        Path folder = wildflyDeployments();
        if (Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war"))) {
            awaitMarker(folder, ".undeployed");
            Files.deleteIfExists(folder.resolve(ON_WILDFLY + ".war.undeployed"));
        }
    }

    @Test
    @Order(2)
    void theServersLoseNoUpdateOfOneCounterUnderOneLock() throws Exception {
        Path counter = DIR.resolve("counter.txt");
        String call = "api/it/counter?times=" + TIMES + "&file="
                + URLEncoder.encode(counter.toString(), StandardCharsets.UTF_8);
        List<CompletableFuture<HttpResponse<String>>> calls = servers().stream()
                .map(server ->
                        CompletableFuture.supplyAsync(() -> Http.at(server).post(call)))
                .toList();

        for (CompletableFuture<HttpResponse<String>> each : calls) {
            assertThat(each.get(150, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(SharedCounter.read(counter)).isEqualTo((long) calls.size() * TIMES);
    }

    @Test
    @Order(3)
    void fiftyBuyersOnTheServersBuyExactlyTheStock() throws Exception {
        Path stock = DIR.resolve("stock.txt");
        Path orders = DIR.resolve("orders.txt");
        Files.writeString(stock, Integer.toString(IN_STOCK), StandardCharsets.UTF_8);
        Files.deleteIfExists(orders);
        List<URL> servers = servers();
        ExecutorService buyers = Executors.newFixedThreadPool(BUYERS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> bought = new ArrayList<>();
            for (int buyer = 0; buyer < BUYERS; buyer++) {
                URL server = servers.get(buyer % servers.size());
                String call = "api/it/stock?item=ticket&buyer=" + buyer + "&stock="
                        + URLEncoder.encode(stock.toString(), StandardCharsets.UTF_8) + "&orders="
                        + URLEncoder.encode(orders.toString(), StandardCharsets.UTF_8);
                bought.add(buyers.submit(() -> {
                    start.await();
                    return Http.at(server).post(call);
                }));
            }
            start.countDown();
            Map<Integer, Long> answers = new TreeMap<>();
            Map<String, Long> soldBy = new TreeMap<>();
            for (Future<HttpResponse<String>> each : bought) {
                HttpResponse<String> answer = each.get(150, TimeUnit.SECONDS);
                answers.merge(answer.statusCode(), 1L, Long::sum);
                if (answer.statusCode() == 201) {
                    soldBy.merge(answer.body(), 1L, Long::sum);
                }
            }
            System.out.println("CrossVendorIT purchases: " + answers + ", sold by " + soldBy);

            assertThat(answers).as("answers by status").isEqualTo(Map.of(201, (long) IN_STOCK, 409, (long)
                    (BUYERS - IN_STOCK)));
            assertThat(Files.readString(stock, StandardCharsets.UTF_8))
                    .as("left in stock")
                    .isEqualTo("0");
            assertThat(Files.readAllLines(orders, StandardCharsets.UTF_8))
                    .as("orders")
                    .hasSize(IN_STOCK);
        } finally {
            buyers.shutdownNow();
        }
    }

    /**
     * First, while the servers do nothing else: a timer that fires more than 1.75 s late is taken for the next tick
     * ({@link LateTimerInterceptor}), and under the load of the counter and the purchases Liberty's fired that late
     * (one tick then showed Liberty's late run and Payara's, the next none); that says nothing about the lock.
     */
    @Test
    @Order(1)
    void aScheduledJobOnTheServersRunsOnOneOfThemEachTick() throws IOException {
        String[] names =
                withPayara() ? new String[] {ON_LIBERTY, ON_WILDFLY, ON_PAYARA} : new String[] {ON_LIBERTY, ON_WILDFLY};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Map<Long, List<String>> ticks = TickLog.firedByAll(DIR, names);
        while (ticks.size() < TICKS && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            ticks = TickLog.firedByAll(DIR, names);
        }
        System.out.println("CrossVendorIT ticks (" + String.join(", ", names) + "): " + ticks);
        assertThat(ticks).as("ticks every server fired within 90 s").hasSizeGreaterThanOrEqualTo(TICKS);
        // a timer that fired late may fire again at once to catch up (seen on a server busy with the purchases): it
        // records each firing, and only one firing of one server may run the job
        ticks.forEach((tick, outcomes) -> assertThat(outcomes.stream()
                        .flatMap(outcome -> Arrays.stream(outcome.split("\\+")))
                        .toList())
                .as("tick %d: what %s did", tick, String.join(", ", names))
                .containsOnlyOnce("ran")
                .containsOnly("ran", "skipped"));
    }

    /** @return the test WAR on each server of this run: Liberty, WildFly and, with profile payara, Payara */
    private List<URL> servers() {
        return withPayara() ? List.of(liberty, wildfly(), payara()) : List.of(liberty, wildfly());
    }

    private static URL wildfly() {
        try {
            return URI.create(System.getProperty("it.wildfly.url") + ON_WILDFLY + "/")
                    .toURL();
        } catch (IOException e) {
            throw new IllegalStateException("it.wildfly.url is not a URL: " + System.getProperty("it.wildfly.url"), e);
        }
    }

    private static boolean withPayara() {
        return "false".equals(System.getProperty("it.payara.skip"));
    }

    /** @return the WAR on Payara: its domain's HTTP port is 32 above the admin port (asadmin's port base + 80) */
    private static URL payara() {
        int http = Integer.parseInt(System.getProperty("it.payara.admin.port")) + 32;
        try {
            return URI.create("http://127.0.0.1:" + http + "/" + ON_PAYARA + "/")
                    .toURL();
        } catch (IOException e) {
            throw new IllegalStateException("No URL for Payara's HTTP port " + http, e);
        }
    }

    /** Runs Payara's asadmin against the test domain's admin port; fails the test when it fails. */
    private static void asadmin(String... command) throws IOException {
        List<String> line = new ArrayList<>(List.of(
                System.getProperty("it.payara.asadmin"),
                "--port",
                System.getProperty("it.payara.admin.port"),
                "--interactive=false"));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(DEPLOY_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("asadmin " + String.join(" ", command) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted waiting for asadmin " + String.join(" ", command), e);
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

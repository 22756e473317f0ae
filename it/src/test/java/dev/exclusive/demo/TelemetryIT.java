package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo's lock metrics, as Liberty's MicroProfile Telemetry exports them (the logging exporter, to messages.log),
 * match what a burst of contended purchases did: every purchase that got the lock is one {@code acquired}, every
 * purchase that waited its 3 s for a lock another process held is one {@code timeout}, all under the method's name
 * template, and every hold was released.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TelemetryIT {

    private static final String TEMPLATE =
            "exclusive.lock=\"purchase:product:{productId}\", exclusive.store=\"shared\"";
    private static final int BUYERS = 24;
    private static final int STOCK = 15;
    private static final int BLOCKED_BUYERS = 3;

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("telemetry-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void theExportedCountsAreThePurchasesThatGotTheLockAndThoseThatTimedOut() throws Exception {
        ExportedMetrics exported = ExportedMetrics.fromNow();
        assertThat(Http.at(base).post("api/products/1/reset?stock=" + STOCK).statusCode())
                .isEqualTo(200);
        assertThat(Http.at(base).post("api/products/2/reset?stock=10").statusCode())
                .isEqualTo(200);

        List<HttpResponse<String>> answers = new ArrayList<>();
        try (LockRegistry outside = Deployments.sharedStoreOutside()) {
            // another process holds product 2: its buyers wait their 3 s and give up
            Lock held = outside.lock("purchase:product:2", Duration.ofSeconds(60));
            assertThat(held.get()).isTrue();
            List<String> paths = new ArrayList<>();
            for (int user = 1; user <= BLOCKED_BUYERS; user++) {
                paths.add("api/products/2/purchase?user=" + user);
            }
            for (int user = 1; user <= BUYERS; user++) {
                paths.add("api/products/1/purchase?user=" + user);
            }
            answers.addAll(postAtOnce(paths));
            held.release();
        }

        long created = answers.stream().filter(a -> a.statusCode() == 201).count();
        long soldOut = answers.stream()
                .filter(a -> a.statusCode() == 409 && a.body().contains("sold-out"))
                .count();
        long busy = answers.stream()
                .filter(a -> a.statusCode() == 409
                        && a.headers().firstValue("Retry-After").isPresent())
                .count();
        assertThat(created + soldOut + busy)
                .as("every answer is a purchase, sold out or busy")
                .isEqualTo(answers.size());
        assertThat(busy).as("the buyers of the held product").isGreaterThanOrEqualTo(BLOCKED_BUYERS);
        long acquired = created + soldOut; // a sold-out answer comes from inside the locked method

        Map<String, Long> expectedOutcomes = Map.of(
                TEMPLATE + ", outcome=\"acquired\"", acquired,
                TEMPLATE + ", outcome=\"timeout\"", busy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!exported.histogramCounts("exclusive.lock.acquire.duration").equals(expectedOutcomes)
                && System.nanoTime() < deadline) {
            Thread.sleep(500); // the exporter writes every 5 s: poll the log until the burst's export is in it
        }
        assertThat(exported.histogramCounts("exclusive.lock.acquire.duration")).isEqualTo(expectedOutcomes);
        assertThat(exported.histogramCounts("exclusive.lock.held.duration")).isEqualTo(Map.of(TEMPLATE, acquired));
        assertThat(exported.sums("exclusive.lock.held")).isEqualTo(Map.of(TEMPLATE, 0L));
    }

    /** Posts every path at once, from a thread each, and returns the answers in the same order. */
    private List<HttpResponse<String>> postAtOnce(List<String> paths) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(paths.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (String path : paths) {
                calls.add(callers.submit(() -> {
                    start.await();
                    return Http.at(base).post(path);
                }));
            }
            start.countDown();
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<HttpResponse<String>> call : calls) {
                answers.add(call.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            callers.shutdownNow();
        }
    }
}

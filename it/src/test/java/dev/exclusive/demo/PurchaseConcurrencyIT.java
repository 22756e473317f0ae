package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The double purchase over HTTP: 50 buyers at once for a stock of 20. With the lock and the conditional update,
 * exactly 20 buy and the stock ends at 0. The seed's point about the conditional update
 * ({@code stock = stock - q WHERE stock >= q}): on its own it already keeps the stock from going negative; the
 * lock adds that buyers queue one at a time instead of racing the database.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class PurchaseConcurrencyIT {

    private static final int STOCK = 20;
    private static final int BUYERS = 50;

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("purchase-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void fiftyConcurrentLockedPurchasesOfTwentyInStockSellExactlyTwenty() throws Exception {
        Map<Integer, Long> statuses = buyAtOnce("purchase");

        assertThat(statuses.get(201)).isEqualTo((long) STOCK);
        assertThat(statuses.keySet()).containsOnly(201, 409);
        assertThat(Http.at(base).get("api/products/1").body()).contains("\"stock\":0");
        assertThat(Http.at(base).get("api/products/1/orders").body()).contains("\"orders\":20", "\"units\":20");
    }

    @Test
    void theConditionalUpdateAloneAlsoNeverOversells() throws Exception {
        Map<Integer, Long> statuses = buyAtOnce("purchase-without-lock");

        assertThat(statuses.get(201)).isEqualTo((long) STOCK);
        assertThat(statuses.get(409)).isEqualTo((long) (BUYERS - STOCK));
        assertThat(Http.at(base).get("api/products/1").body()).contains("\"stock\":0");
        assertThat(Http.at(base).get("api/products/1/orders").body()).contains("\"orders\":20", "\"units\":20");
    }

    /** Resets product 1 to the stock, fires the purchases together, and counts the answers by status. */
    private Map<Integer, Long> buyAtOnce(String endpoint) throws Exception {
        assertThat(Http.at(base).post("api/products/1/reset?stock=" + STOCK).statusCode())
                .isEqualTo(200);
        ExecutorService buyers = Executors.newFixedThreadPool(BUYERS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int user = 1; user <= BUYERS; user++) {
                String path = "api/products/1/" + endpoint + "?quantity=1&user=" + user;
                answers.add(buyers.submit(() -> {
                    start.await();
                    return Http.at(base).post(path);
                }));
            }
            start.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<HttpResponse<String>> answer : answers) {
                statuses.add(answer.get(60, TimeUnit.SECONDS).statusCode());
            }
            return statuses.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        } finally {
            buyers.shutdownNow();
        }
    }
}

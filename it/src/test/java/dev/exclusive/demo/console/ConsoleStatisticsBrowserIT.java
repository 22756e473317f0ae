package dev.exclusive.demo.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

/**
 * The console's statistics in a real browser, after real contention through the demo's endpoints: contended
 * purchases (they wait for {@code purchase:product:{productId}}), daily reports skipped while one runs (busy), and a
 * user import that another import waits for. The tiles show the shared store's acquisitions and busy answers, the
 * charts draw them, the most contended templates list the purchase's, and the import's detail says that a caller
 * of this server is waiting. Saves console-tiles.png and console-charts.png (1024 px wide) and
 * console-detail-waited-on.png (1440 px) under target/console-screenshots for the README.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleStatisticsBrowserIT {

    private static final Duration PAGE = Duration.ofSeconds(30);
    private static final String IMPORTS = Deployments.SHARED_PREFIX + "imports:users";
    private static final String PURCHASE_TEMPLATE = "purchase:product:{productId}";
    private static final Pattern RATE = Pattern.compile("([0-9.]+)(k|M)?/s");

    /** A tile's figure, by the CSS class of its value. */
    private static final String TILE = """
            const tile = document.querySelector('.exclusive-store-tile[data-store="' + arguments[0] + '"]');
            if (!tile) { return null; }
            const value = tile.querySelector('.' + arguments[1]);
            return value ? value.innerText.trim() : null;
            """;

    /** A chart's line as its points' y coordinates, or null while it has no line. */
    private static final String LINE = """
            const line = document.querySelector('#' + arguments[0] + ' svg polyline');
            if (!line) { return null; }
            return line.getAttribute('points').trim().split(' ').map(p => parseFloat(p.split(',')[1]));
            """;

    /**
     * Where the tiles and charts sit, in CSS px: each one's left and right edge, and whether any of its figures is
     * cut (its text wider than its box).
     */
    private static final String BOXES = """
            const boxes = [...document.querySelectorAll('.exclusive-store-tile, .exclusive-chart-box')];
            return boxes.map(b => {
                const r = b.getBoundingClientRect();
                const cut = [...b.querySelectorAll('span')].some(s => s.scrollWidth > s.clientWidth + 1
                    && getComputedStyle(s).display === 'block');
                const svg = b.querySelector('svg');
                return { name: b.dataset.store || b.id, left: r.left, right: r.right, cut: cut,
                         svgWidth: svg ? svg.getBoundingClientRect().width : -1 };
            });
            """;

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("console-statistics-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void tilesChartsContendedTemplatesAndWaitersShowTheContentionTheDemoMade() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
        AtomicBoolean waitingGoesOn = new AtomicBoolean(true);
        CompletableFuture<Void> waiters = CompletableFuture.completedFuture(null);
        try {
            // busy: one daily report runs 30 s, and the ones asked for meanwhile are skipped
            requests.add(post("api/reports/daily?seconds=30"));
            Http admin = Http.at(base).as("admin", "admin");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!admin.get("api/admin/locks?prefix=" + Deployments.SHARED_PREFIX + "reports:daily")
                            .body()
                            .contains("reports:daily")
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            long skipped = 0;
            for (int i = 0; i < 6; i++) {
                if (send("api/reports/daily?seconds=1").body().contains("\"ran\":false")) {
                    skipped++;
                }
            }
            assertThat(skipped).as("daily reports skipped while one ran").isEqualTo(6);
            // waits: three waves of 10 purchases of one product at once queue for its lock; the waves are spread
            // over some seconds (not waiting for anything) so that the charts show them apart
            assertThat(send("api/products/1/reset?stock=30").statusCode()).isEqualTo(200);
            List<CompletableFuture<HttpResponse<String>>> purchases = new ArrayList<>();
            for (int wave = 0; wave < 3; wave++) {
                if (wave > 0) {
                    TimeUnit.SECONDS.sleep(6);
                }
                List<CompletableFuture<HttpResponse<String>>> buyers = new ArrayList<>();
                for (int user = 1; user <= 10; user++) {
                    buyers.add(post("api/products/1/purchase?quantity=1&user=" + (wave * 10 + user)));
                }
                CompletableFuture.allOf(buyers.toArray(CompletableFuture[]::new))
                        .get(90, TimeUnit.SECONDS);
                purchases.addAll(buyers);
            }
            assertThat(purchases.stream().filter(p -> p.join().statusCode() == 201))
                    .as("purchases that bought")
                    .isNotEmpty();

            try (Browser browser = Browser.start()) {
                browser.viewport(1024, 768);
                browser.openAs("admin", "admin", base, "exclusive");

                double acquired = browser.await(PAGE, page -> positive(browser, "exclusive-tile-acquisitions"));
                double busy = browser.await(PAGE, page -> positive(browser, "exclusive-tile-busy"));
                assertThat(acquired).as("shared store: acquisitions/s").isPositive();
                assertThat(busy).as("shared store: busy/s").isPositive();
                assertThat(browser.script(TILE, "shared", "exclusive-tile-state"))
                        .isEqualTo("● reachable");
                assertThat((String) browser.script(TILE, "shared", "exclusive-tile-p99"))
                        .startsWith("≤ ");
                assertThat((String) browser.script(TILE, "shared", "exclusive-tile-live"))
                        .as("the running report's lock")
                        .matches("[1-9][0-9]*\\+?");

                // the charts draw complete 5 s buckets: the calls above show once their bucket has ended
                for (String chart : List.of("exclusive-chart-acquisitions", "exclusive-chart-waits")) {
                    List<Double> line = browser.await(PAGE, page -> notFlat(browser, chart));
                    assertThat(line)
                            .as("%s: a line that rises above its base", chart)
                            .hasSizeGreaterThan(1);
                }
                assertThat(browser.text(By.id("exclusive-chart-acquisitions"))).contains("Acquisitions", "/s", "peak");
                List<List<String>> contended = browser.await(PAGE, page -> {
                    List<List<String>> rows = browser.rows("exclusive-console-contended");
                    return rows.stream().anyMatch(row -> row.get(0).equals(PURCHASE_TEMPLATE)) ? rows : null;
                });
                List<String> purchaseRow = contended.stream()
                        .filter(row -> row.get(0).equals(PURCHASE_TEMPLATE))
                        .findFirst()
                        .orElseThrow();
                assertThat(purchaseRow.get(1)).as("store").isEqualTo("shared");
                assertThat(Long.parseLong(purchaseRow.get(2))).as("contended").isPositive();
                assertThat(Long.parseLong(purchaseRow.get(3))).as("acquired").isPositive();
                assertThat(purchaseRow.get(4)).as("p99 wait").startsWith("≤ ");

                browser.screenshot("console-tiles");
                browser.script("document.getElementById('exclusive-console-activity').scrollIntoView()");
                browser.screenshot("console-charts");
                browser.script("window.scrollTo(0, 0)");

                // at 1024 px every tile and chart is on screen, wide enough to read, and no figure is cut
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> boxes = (List<Map<String, Object>>) browser.script(BOXES);
                assertThat(boxes).hasSizeGreaterThanOrEqualTo(3 + 3);
                for (Map<String, Object> box : boxes) {
                    assertThat(((Number) box.get("left")).doubleValue())
                            .as("%s", box)
                            .isGreaterThanOrEqualTo(0);
                    assertThat(((Number) box.get("right")).doubleValue())
                            .as("%s", box)
                            .isLessThanOrEqualTo(1024);
                    assertThat(box.get("cut")).as("a figure of %s is cut", box).isEqualTo(false);
                    double svgWidth = ((Number) box.get("svgWidth")).doubleValue();
                    if (svgWidth >= 0) {
                        assertThat(svgWidth)
                                .as("%s drawn at least 260 px wide", box)
                                .isGreaterThanOrEqualTo(260);
                    }
                }
                // a caller of this server waits: one import holds imports:users, another waits up to 5 s for it,
                // and another, and another, until the detail has shown one
                requests.add(post("api/imports/users?seconds=25"));
                browser.viewport(1440, 800);
                browser.script("window.scrollTo(0, 0)");
                browser.await(PAGE, page -> browser.row(IMPORTS));
                waiters = CompletableFuture.runAsync(() -> {
                    while (waitingGoesOn.get()) {
                        post("api/imports/users?seconds=1").join();
                    }
                });
                browser.click(By.xpath("//vaadin-grid-cell-content[normalize-space(.)='" + IMPORTS + "']"));
                String detail = browser.await(PAGE, page -> {
                    String text =
                            browser.all(By.cssSelector("vaadin-dialog-overlay")).isEmpty()
                                    ? ""
                                    : browser.text(By.cssSelector("vaadin-dialog-overlay"));
                    return text.matches("(?s).*Waited on\\s+\\d+ callers? of this server (is|are) waiting.*")
                            ? text
                            : null;
                });
                assertThat(detail)
                        .containsPattern(
                                "Waited on\\s+1 caller of this server is waiting for it, for (< 1|\\d+) s" + " so far");
                browser.screenshot("console-detail-waited-on");
            }
        } finally {
            waitingGoesOn.set(false);
            waiters.get(90, TimeUnit.SECONDS);
            CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        }
    }

    /** The shared store's tile figure as a rate, once it is above zero; else {@code null}. */
    private static Double positive(Browser browser, String figure) {
        Object text = browser.script(TILE, "shared", figure);
        if (text == null) {
            return null;
        }
        java.util.regex.Matcher rate = RATE.matcher((String) text);
        if (!rate.matches()) {
            throw new AssertionError("Not a rate: '" + text + "'");
        }
        double value = Double.parseDouble(rate.group(1))
                * ("k".equals(rate.group(2)) ? 1e3 : "M".equals(rate.group(2)) ? 1e6 : 1);
        return value > 0 ? value : null;
    }

    /** The chart's line once one of its points lies above the base line (a smaller y); else {@code null}. */
    @SuppressWarnings("unchecked")
    private static List<Double> notFlat(Browser browser, String chart) {
        List<Number> ys = (List<Number>) browser.script(LINE, chart);
        if (ys == null || ys.isEmpty()) {
            return null;
        }
        double base = ys.stream().mapToDouble(Number::doubleValue).max().orElseThrow();
        boolean rises = ys.stream().anyMatch(y -> y.doubleValue() < base - 1);
        return rises ? ys.stream().map(Number::doubleValue).toList() : null;
    }

    private HttpResponse<String> send(String path) throws Exception {
        return post(path).get(90, TimeUnit.SECONDS);
    }

    private CompletableFuture<HttpResponse<String>> post(String path) {
        return Http.at(base).postAsync(path);
    }
}

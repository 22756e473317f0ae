package dev.exclusive.demo.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

/**
 * The lock console in the demo WAR, in a real browser: the admin sees a lock that a long-running demo request
 * holds, with its holder and a remaining time that counts down, force-releases it, and the request waiting for
 * the lock proceeds; the operator is refused; an anonymous visit is asked to log in. Each test saves screenshots
 * under target/console-screenshots.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final Duration PAGE = Duration.ofSeconds(30);
    private static final Pattern REMAINING = Pattern.compile("(?:(\\d+) min )?(\\d+) s");
    private static final Pattern STARTED_AT = Pattern.compile("\"startedAt\":\"([^\"]+)\"");
    /** The user import's lock as the console lists it: the shared store's prefix, then the name. */
    private static final String IMPORTS = Deployments.SHARED_PREFIX + "imports:users";

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("console-it.war")
                .addClasses(ForceReleaseRecorder.class, ForceReleaseRecorder.Events.class);
    }

    @ArquillianResource
    URL base;

    @Test
    @Order(1)
    void adminSeesAHeldLockCountingDownForceReleasesItAndTheWaitingRequestProceeds() throws Exception {
        // the import holds imports:users in the shared store (ttl 60 s) for 30 s of work
        CompletableFuture<HttpResponse<String>> longImport = post("api/imports/users?seconds=30");
        try (Browser browser = Browser.start()) {
            browser.openAs("admin", "admin", base, "exclusive");

            List<String> held = browser.await(PAGE, page -> browser.row(IMPORTS));
            assertThat(held.get(0)).as("store").isEqualTo("shared");
            assertThat(held.get(2)).as("holder: instance · thread").matches(".+ · .+");
            assertThat(held.get(3)).as("purpose").isEqualTo("UserImport#importUsers");
            long fence = Long.parseLong(held.get(7));
            long firstRemaining = seconds(held.get(6));
            long laterRemaining = browser.await(Duration.ofSeconds(10), page -> {
                List<String> row = browser.row(IMPORTS);
                long now = row == null ? firstRemaining : seconds(row.get(6));
                return now < firstRemaining ? now : null;
            });
            assertThat(laterRemaining).as("the remaining time counts down").isLessThan(firstRemaining);
            browser.screenshot("admin-sees-held-lock");

            browser.click(By.cssSelector("vaadin-button[data-lock='" + IMPORTS + "'][data-store='shared']"));
            String dialog = browser.await(PAGE, page -> {
                String text = browser.dialogText();
                return text.contains(IMPORTS) ? text : null;
            });
            assertThat(dialog)
                    .contains(
                            "Lock: " + IMPORTS + " (store shared, fence " + fence + ")",
                            "Holder: ",
                            "UserImport#importUsers",
                            "Expires at: ");
            browser.screenshot("force-release-confirmation");

            // a second import waits (up to 5 s) for the lock
            CompletableFuture<HttpResponse<String>> waiting = post("api/imports/users?seconds=1");
            assertThatThrownBy(() -> waiting.get(700, TimeUnit.MILLISECONDS))
                    .as("the second import waits while the first holds the lock")
                    .isInstanceOf(TimeoutException.class);
            Instant confirmed = Instant.now();
            browser.click(By.cssSelector("vaadin-confirm-dialog-overlay vaadin-button[slot='confirm-button']"));

            browser.await(
                    PAGE, page -> browser.notifications().contains("Released '" + IMPORTS + "' in store 'shared'."));
            browser.await(PAGE, page -> {
                List<String> row = browser.row(IMPORTS);
                return row == null || Long.parseLong(row.get(7)) != fence;
            });
            browser.screenshot("after-force-release");

            HttpResponse<String> proceeded = waiting.get(15, TimeUnit.SECONDS);
            assertThat(proceeded.statusCode()).as(proceeded.body()).isEqualTo(200);
            Matcher started = STARTED_AT.matcher(proceeded.body());
            assertThat(started.find()).as(proceeded.body()).isTrue();
            assertThat(Instant.parse(started.group(1)))
                    .as("the waiting import ran once the lock was freed")
                    .isAfter(confirmed.minusMillis(500));
            browser.await(PAGE, page -> browser.row(IMPORTS) == null);
            assertThat(HTTP.send(
                                    HttpRequest.newBuilder(uri("test/force-releases"))
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body())
                    .as("fired as LockForceReleased with the user's name")
                    .isEqualTo("shared/" + IMPORTS + " released by admin");
        } finally {
            finish(List.of(longImport));
        }
    }

    @Test
    @Order(2)
    void theOperatorIsRefusedWithAPageThatSaysWhy() {
        try (Browser browser = Browser.start()) {
            browser.openAs("operator", "operator", base, "exclusive");

            String title = browser.await(
                    PAGE,
                    page -> browser.all(By.id("exclusive-console-refused")).isEmpty()
                            ? null
                            : browser.text(By.id("exclusive-console-refused")));
            browser.screenshot("operator-refused");

            assertThat(title).isEqualTo("Access denied");
            assertThat(browser.text(By.tagName("body")))
                    .contains("signed in as 'operator'", "not in role 'exclusive-admin'");
            assertThat(browser.all(By.id("exclusive-console-grid"))).isEmpty();
        }
    }

    @Test
    @Order(3)
    void anAnonymousVisitIsAskedToLogIn() throws Exception {
        HttpResponse<String> anonymous =
                HTTP.send(HttpRequest.newBuilder(uri("exclusive")).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"exclusive-demo\"");
        try (Browser browser = Browser.start()) {
            browser.open(base, "exclusive");
            browser.screenshot("anonymous-asked-to-log-in");

            assertThat(browser.all(By.id("exclusive-console-grid"))).isEmpty();
        }
    }

    /**
     * The console with a few locks held, 1024 px wide, for the README (docs/console.png): every header sits over its
     * column (the cells share their edges, and a header's label starts where the column's text starts, or ends where
     * it ends for the right-aligned columns), and every column, the force-release button included, is on screen
     * without scrolling. Last, so that its locks bother no one. Tagged {@code layout}: the browser lays out the same
     * Vaadin bundle on every server, so the wildfly and payara profiles leave it to Liberty's run.
     */
    @Test
    @Order(4)
    @Tag("layout")
    void at1024PxEveryHeaderSitsOverItsColumnAndNothingIsOffScreen() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> jobs = List.of(
                post("api/reports/daily?seconds=20"),
                post("api/exports/manual?seconds=20"),
                post("api/imports/users?seconds=20"));
        try (Browser browser = Browser.start()) {
            browser.viewport(1024, 640);
            browser.openAs("admin", "admin", base, "exclusive");

            browser.await(
                    PAGE,
                    page -> browser.row(Deployments.SHARED_PREFIX + "reports:daily") != null
                            && browser.row(Deployments.SHARED_PREFIX + "exports:manual") != null
                            && browser.row(IMPORTS) != null);
            Map<String, Object> layout = browser.await(PAGE, page -> browser.columns());
            browser.screenshot("console");

            assertThat(((Number) layout.get("window")).intValue())
                    .as("window width")
                    .isEqualTo(1024);
            // the page scrolls down to the charts and the history: its scroll bar narrows the room the grid has
            double viewport = ((Number) layout.get("viewport")).doubleValue();
            assertThat(viewport).as("viewport width").isBetween(1000.0, 1024.0);
            assertThat((String) layout.get("overflow"))
                    .as("the grid scrolls sideways: some column is off screen")
                    .doesNotContain("left")
                    .doesNotContain("right");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> columns = (List<Map<String, Object>>) layout.get("columns");
            assertThat(columns).hasSize(9);
            for (Map<String, Object> column : columns) {
                String name = column.get("header") + " / " + column.get("body");
                assertThat(px(column, "cellLeft"))
                        .as("left edge of %s", name)
                        .isCloseTo(px(column, "headerLeft"), ALIGNED);
                assertThat(px(column, "cellRight"))
                        .as("right edge of %s", name)
                        .isCloseTo(px(column, "headerRight"), ALIGNED);
                assertThat(px(column, "cellRight")).as("%s on screen", name).isLessThanOrEqualTo(viewport);
                if (column.get("headerShownLeft") == null) {
                    continue; // the actions column has no header
                }
                String edge = Boolean.TRUE.equals(column.get("end")) ? "Right" : "Left";
                assertThat(px(column, "bodyShown" + edge))
                        .as("%s: the header's label and the column's text, %s edge", name, edge.toLowerCase())
                        .isCloseTo(px(column, "headerShown" + edge), ALIGNED);
            }

            assertThat(browser.row(Deployments.SHARED_PREFIX + "exports:manual").get(3))
                    .isEqualTo("ManualExport#run");
            assertThat(browser.row(Deployments.SHARED_PREFIX + "reports:daily").get(3))
                    .isEqualTo("DailyReport#rebuild");
            // 1024 px shows every column, names and holders shortened (their tooltips have them whole); the
            // README's picture is a common laptop's width, where they show in full
            browser.viewport(1440, 640);
            browser.await(PAGE, page -> browser.row(IMPORTS) != null);
            browser.screenshot("console-readme");
        } finally {
            finish(jobs);
        }
    }

    /** How far apart, in CSS px, two edges that line up may be: rounding of fractional layout positions. */
    private static final Offset<Double> ALIGNED = Offset.offset(1.5);

    private static double px(Map<String, Object> column, String key) {
        return ((Number) column.get(key)).doubleValue();
    }

    /** Lets the demo requests end before the WAR is undeployed, which waits for running requests. */
    private static void finish(List<CompletableFuture<HttpResponse<String>>> requests) throws Exception {
        CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
    }

    private static long seconds(String remaining) {
        Matcher matcher = REMAINING.matcher(remaining);
        if (!matcher.find()) {
            throw new AssertionError("Not a remaining time: '" + remaining + "'");
        }
        long minutes = matcher.group(1) == null ? 0 : Long.parseLong(matcher.group(1));
        return minutes * 60 + Long.parseLong(matcher.group(2));
    }

    private CompletableFuture<HttpResponse<String>> post(String path) {
        return Http.at(base).postAsync(path);
    }

    private URI uri(String path) {
        try {
            return base.toURI().resolve(path);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

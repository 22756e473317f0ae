package dev.exclusive.demo.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockRegistry;
import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The console's History in a real browser: a lock the demo holds on the Liberty server is force-released by another
 * process (this test's JVM, on the same lock folder, as a second server would), and the console on Liberty shows who
 * did it and which hold it ended; when the demo's work then finishes, its lost lease shows too. Screenshots under
 * target/console-screenshots (console-history.png is the README's).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleHistoryBrowserIT {

    private static final Duration PAGE = Duration.ofSeconds(60);
    private static final String HISTORY = "exclusive-console-history-grid";
    private static final String IMPORTS = Deployments.SHARED_PREFIX + "imports:users";
    /** Who force-releases, as the other server names its operator. */
    private static final String ACTOR = "ops@node-2";

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("console-history-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void aForceReleaseOnAnotherServerShowsWhoEndedWhichHoldAndTheHoldersLostLeaseFollows() throws Exception {
        // the import holds imports:users in the shared file store for 30 s of work (ttl 60 s)
        CompletableFuture<HttpResponse<String>> longImport = post("api/imports/users?seconds=30");
        try (LockRegistry otherServer = Deployments.sharedStoreOutside();
                Browser browser = Browser.start()) {
            browser.viewport(1440, 900);
            browser.openAs("admin", "admin", base, "exclusive");
            List<String> held = browser.await(PAGE, page -> browser.row(IMPORTS));
            browser.screenshot("console-history-held");
            long fence = Long.parseLong(held.get(7));

            assertThat(otherServer.forceRelease("imports:users", ACTOR)).isTrue();

            List<String> forced = browser.await(PAGE, page -> historyRow("Force-released", fence, browser));
            assertThat(forced.get(1)).as("store").isEqualTo("shared");
            assertThat(forced.get(3)).as("lock").isEqualTo(IMPORTS);
            assertThat(forced.get(4))
                    .as("the hold it ended: its fence, then the Liberty holder's instance, thread and purpose")
                    .startsWith(fence + " · ")
                    .endsWith(" · UserImport#importUsers");
            assertThat(forced.get(5)).as("by").isEqualTo(ACTOR);
            assertThat(forced.get(6)).as("outcome").startsWith("released");

            List<String> lost = browser.await(PAGE, page -> historyRow("Lease lost", fence, browser));
            assertThat(lost.get(3)).isEqualTo(IMPORTS);
            assertThat(lost.get(4)).startsWith(fence + " · ");
            assertThat(lost.get(5))
                    .as("the Liberty instance that held it")
                    .isNotEqualTo(ACTOR)
                    .isNotBlank();
            assertThat(browser.cutCells(HISTORY))
                    .as("History cells cut off at 1440 px: an operator reads the hold and its outcome whole")
                    .isEmpty();
            // the history is below the grid and the charts: the picture shows it at the window's bottom
            browser.script("document.getElementById('exclusive-console-history').scrollIntoView(false)");
            browser.screenshot("console-history");
        } finally {
            longImport.get(90, TimeUnit.SECONDS);
        }
    }

    /**
     * @return the History row of kind {@code kind} about the import's hold with {@code fence} (the trail outlives
     *     earlier tests on the same server), or {@code null} while none shows
     */
    private static List<String> historyRow(String kind, long fence, Browser browser) {
        return browser.rows(HISTORY).stream()
                .filter(cells -> cells.size() >= 7
                        && cells.get(2).equals(kind)
                        && cells.get(3).equals(IMPORTS)
                        && cells.get(4).startsWith(fence + " "))
                .findFirst()
                .orElse(null);
    }

    private CompletableFuture<HttpResponse<String>> post(String path) {
        return Http.at(base).postAsync(path);
    }
}

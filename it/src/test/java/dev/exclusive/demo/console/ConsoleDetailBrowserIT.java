package dev.exclusive.demo.console;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.openqa.selenium.By;

/**
 * A lock's detail in a real browser: clicking the row of a lock a demo request holds opens the full holder and
 * fence, which the grid shortens, with the force-release button for the admin. Saves console-detail.png (1440 px
 * wide) under target/console-screenshots; the README's picture of the detail is ConsoleStatisticsBrowserIT's, which
 * also shows a caller waiting.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleDetailBrowserIT {

    private static final Duration PAGE = Duration.ofSeconds(30);
    private static final String IMPORTS = Deployments.SHARED_PREFIX + "imports:users";

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("console-detail-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void clickingARowShowsTheFullHolderAndFence() throws Exception {
        CompletableFuture<HttpResponse<String>> longImport = Http.at(base).postAsync("api/imports/users?seconds=20");
        try (Browser browser = Browser.start()) {
            browser.viewport(1440, 800);
            browser.openAs("admin", "admin", base, "exclusive");
            List<String> row = browser.await(PAGE, page -> browser.row(IMPORTS));
            String fence = row.get(7);

            browser.click(By.xpath("//vaadin-grid-cell-content[normalize-space(.)='" + IMPORTS + "']"));
            String overlay = browser.await(PAGE, page -> {
                List<?> open = browser.all(By.cssSelector("vaadin-dialog-overlay"));
                String text = open.isEmpty() ? "" : browser.text(By.cssSelector("vaadin-dialog-overlay"));
                return text.contains("Fence") ? text : null;
            });

            assertThat(overlay)
                    .contains("Lock " + IMPORTS, "UserImport#importUsers", "Force release…", "Close")
                    .containsPattern("Store\\s+shared")
                    .containsPattern("Name\\s+" + java.util.regex.Pattern.quote(IMPORTS))
                    .containsPattern("Fence\\s+" + fence + "\\b")
                    .containsPattern("Instance\\s+\\S+")
                    .containsPattern("Thread\\s+\\S+")
                    .containsPattern("Expires at\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\(in .+ when listed\\)");
            browser.screenshot("console-detail");
        } finally {
            longImport.get(90, TimeUnit.SECONDS);
        }
    }
}

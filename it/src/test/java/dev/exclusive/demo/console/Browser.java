package dev.exclusive.demo.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium on the lock console: Debian's {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver}, so
 * Selenium Manager never downloads anything.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    /**
     * The rows a grid (id {@code arguments[0]}) shows, each as its cells' texts; for the lock grid: store, name,
     * holder, purpose, acquired at, expires at, remaining, fence, action. Cells live in the grid's light DOM, slotted
     * into rows in its shadow DOM.
     */
    private static final String ROWS = """
            const grid = document.getElementById(arguments[0]);
            if (!grid) { return []; }
            return [...grid.shadowRoot.querySelectorAll('#items tr')]
                .filter(tr => !tr.hidden)
                .map(tr => [...tr.querySelectorAll('td')].map(td => {
                    const slot = td.querySelector('slot');
                    const content = slot && slot.assignedElements()[0];
                    return content ? content.innerText.trim() : '';
                }))
                .filter(cells => cells.length > 1 && cells[1] !== '');
            """;

    /** The texts of the cells of a grid (id {@code arguments[0]}) that are wider than their column shows. */
    private static final String CUT_CELLS = """
            const grid = document.getElementById(arguments[0]);
            if (!grid) { return []; }
            return [...grid.shadowRoot.querySelectorAll('#items tr td')]
                .filter(td => !td.parentElement.hidden)
                .map(td => td.querySelector('slot') && td.querySelector('slot').assignedElements()[0])
                .filter(content => content && content.scrollWidth > content.clientWidth + 1)
                .map(content => content.innerText.trim());
            """;

    /**
     * Where each column's header and first row sit on screen, in CSS px, in column order: the cells' edges, and the
     * edges of what they show (the header's sorter, the text or button of the body cell); plus the window's width,
     * the viewport's (the window less a vertical scroll bar) and whether the grid scrolls sideways ({@code overflow}
     * has {@code left} or {@code right}).
     */
    private static final String COLUMNS = """
            const grid = document.getElementById('exclusive-console-grid');
            if (!grid) { return null; }
            const root = grid.shadowRoot;
            const header = [...root.querySelectorAll('thead tr')].filter(tr => !tr.hidden).pop();
            const row = [...root.querySelectorAll('#items tr')]
                .find(tr => !tr.hidden && [...tr.querySelectorAll('td')].some(td => td.innerText !== ''
                    || (td.querySelector('slot') && td.querySelector('slot').assignedElements()[0]
                        && td.querySelector('slot').assignedElements()[0].innerText.trim() !== '')));
            if (!header || !row) { return null; }
            const content = cell => {
                const slot = cell.querySelector('slot');
                return slot && slot.assignedElements()[0];
            };
            const shown = element => {
                if (!element) { return null; }
                const inner = element.firstElementChild;
                if (inner) { return inner.getBoundingClientRect(); }
                const range = document.createRange();
                range.selectNodeContents(element);
                const box = range.getBoundingClientRect();
                return box.width > 0 ? box : null;
            };
            const headerCells = [...header.querySelectorAll('th')];
            const bodyCells = [...row.querySelectorAll('td')];
            const columns = headerCells.map((th, i) => {
                const td = bodyCells[i];
                const h = th.getBoundingClientRect();
                const b = td.getBoundingClientRect();
                const hs = shown(content(th));
                const bs = shown(content(td));
                return {
                    header: content(th) ? content(th).innerText.trim() : '',
                    body: content(td) ? content(td).innerText.trim() : '',
                    headerLeft: h.left, headerRight: h.right, cellLeft: b.left, cellRight: b.right,
                    headerShownLeft: hs ? hs.left : null, headerShownRight: hs ? hs.right : null,
                    bodyShownLeft: bs ? bs.left : null, bodyShownRight: bs ? bs.right : null,
                    end: getComputedStyle(content(td) || td).textAlign === 'end'
                        || getComputedStyle(content(td) || td).textAlign === 'right'
                };
            });
            return {
                window: window.innerWidth,
                viewport: document.documentElement.clientWidth,
                overflow: grid.getAttribute('overflow') || '',
                columns
            };
            """;

    private final ChromeDriver driver;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    /**
     * Starts a headless browser; without Debian's chromium the test is skipped, unless {@code CI=true}, where it
     * fails.
     */
    static Browser start() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && !"true".equals(System.getenv("CI"))) {
            Assumptions.abort("Browser tests need Debian's chromium and chromedriver (apt-get install -y chromium"
                    + " chromium-driver)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--window-size=1500,850");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new Browser(new ChromeDriver(service, options));
    }

    /**
     * Opens a page as a user of the demo's BASIC login. Chrome keeps the credentials of the first, credentialed
     * URL for the application's path; the page itself is then opened without them, because Vaadin's router does
     * not start on a URL that carries credentials.
     */
    void openAs(String user, String password, URL base, String path) {
        String withCredentials =
                base.getProtocol() + "://" + user + ":" + password + "@" + base.getAuthority() + base.getPath() + path;
        driver.get(withCredentials);
        open(base, path);
    }

    void open(URL base, String path) {
        driver.get(base.toString() + path);
    }

    /** Waits up to {@code timeout} for {@code condition} to give a non-null, non-false value. */
    <T> T await(Duration timeout, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(100)).until(condition);
    }

    List<List<String>> rows() {
        return rows("exclusive-console-grid");
    }

    /** @return the rows of the grid with id {@code gridId}, each as its cells' texts */
    @SuppressWarnings("unchecked")
    List<List<String>> rows(String gridId) {
        return (List<List<String>>) driver.executeScript(ROWS, gridId);
    }

    /** @return the row of lock {@code name}, or {@code null} if the grid does not show it */
    List<String> row(String name) {
        return rows().stream()
                .filter(cells -> cells.get(1).equals(name))
                .findFirst()
                .orElse(null);
    }

    /** Clicks, finding the element again if the grid re-rendered it in between. */
    void click(By locator) {
        await(Duration.ofSeconds(10), page -> {
            try {
                page.findElement(locator).click();
                return true;
            } catch (org.openqa.selenium.StaleElementReferenceException
                    | org.openqa.selenium.NoSuchElementException e) {
                return false;
            }
        });
    }

    String text(By locator) {
        return driver.findElement(locator).getText();
    }

    List<WebElement> all(By locator) {
        return driver.findElements(locator);
    }

    /** Sets the size of the page's viewport (the headless window has no frame), in CSS px. */
    void viewport(int width, int height) {
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(width, height));
        Object inner = driver.executeScript("return [window.innerWidth, window.innerHeight]");
        @SuppressWarnings("unchecked")
        List<Number> size = (List<Number>) inner;
        int extraWidth = width - size.get(0).intValue();
        int extraHeight = height - size.get(1).intValue();
        if (extraWidth != 0 || extraHeight != 0) {
            driver.manage()
                    .window()
                    .setSize(new org.openqa.selenium.Dimension(width + extraWidth, height + extraHeight));
        }
    }

    /**
     * @return where the grid's header cells and its first row's cells are, or {@code null} while the grid shows no
     *     row; see {@link #COLUMNS}
     */
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> columns() {
        return (java.util.Map<String, Object>) driver.executeScript(COLUMNS);
    }

    /**
     * @return the texts of the cells of grid {@code gridId} whose text does not fit their column (cut off with an
     *     ellipsis), empty when every cell shows its text whole
     */
    @SuppressWarnings("unchecked")
    List<String> cutCells(String gridId) {
        return (List<String>) driver.executeScript(CUT_CELLS, gridId);
    }

    /** Runs {@code script} in the page with {@code arguments[0..]}, and returns what it returns. */
    Object script(String script, Object... arguments) {
        return driver.executeScript(script, arguments);
    }

    /** @return the texts of the notifications on screen, joined */
    String notifications() {
        return String.valueOf(driver.executeScript(
                "return [...document.querySelectorAll('vaadin-notification-card')].map(c => c.innerText).join(' | ')"));
    }

    /** @return the text of the open confirmation dialog */
    String dialogText() {
        return String.valueOf(driver.executeScript(
                "return [...document.querySelectorAll('vaadin-confirm-dialog-overlay')].map(o => o.innerText)"
                        + ".join(' | ')"));
    }

    /**
     * Saves a screenshot under target/console-screenshots for review, without Vaadin's progress bar, which shows at
     * the top of the page whenever a refresh takes a moment (on a loaded machine, most of them).
     */
    Path screenshot(String name) {
        driver.executeScript("if (!document.getElementById('screenshot-no-progress-bar')) {"
                + " document.head.insertAdjacentHTML('beforeend', '<style id=\"screenshot-no-progress-bar\">"
                + "vaadin-connection-indicator, .v-loading-indicator { display: none !important; }</style>'); }");
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}

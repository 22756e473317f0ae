package dev.exclusive.admin;

import com.vaadin.flow.component.AttachEvent;
import com.vaadin.flow.component.Component;
import com.vaadin.flow.component.DetachEvent;
import com.vaadin.flow.component.Html;
import com.vaadin.flow.component.UI;
import com.vaadin.flow.component.UIDetachedException;
import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.button.ButtonVariant;
import com.vaadin.flow.component.combobox.MultiSelectComboBox;
import com.vaadin.flow.component.confirmdialog.ConfirmDialog;
import com.vaadin.flow.component.grid.ColumnTextAlign;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.Div;
import com.vaadin.flow.component.html.H2;
import com.vaadin.flow.component.html.Paragraph;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.notification.Notification;
import com.vaadin.flow.component.notification.NotificationVariant;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.component.select.Select;
import com.vaadin.flow.component.textfield.TextField;
import com.vaadin.flow.data.provider.Query;
import com.vaadin.flow.data.provider.QuerySortOrder;
import com.vaadin.flow.data.provider.SortDirection;
import com.vaadin.flow.data.renderer.LitRenderer;
import com.vaadin.flow.data.value.ValueChangeMode;
import com.vaadin.flow.router.BeforeEnterEvent;
import com.vaadin.flow.router.BeforeEnterObserver;
import com.vaadin.flow.router.HasDynamicTitle;
import com.vaadin.flow.router.NavigationTrigger;
import com.vaadin.flow.server.VaadinRequest;
import com.vaadin.flow.shared.Registration;
import com.vaadin.flow.shared.communication.PushMode;
import com.vaadin.flow.shared.ui.Transport;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInfo;
import dev.exclusive.admin.LockFilter.NameMatch;
import dev.exclusive.admin.internal.ConsoleAccess;
import dev.exclusive.admin.internal.ConsoleFormat;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.admin.internal.ConsoleUpdates;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.security.Principal;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The lock console: every live lock of every configured store in one grid, refreshed live, with force-release.
 *
 * <p>Registered at {@code exclusive.console.route} (default {@code exclusive}) when Vaadin starts. Security is
 * declared here, in {@link #beforeEnter}: only users in role {@code exclusive.console.role} (default
 * {@code exclusive-admin}) see the console; a signed-in user without the role gets a page that says so; a visitor
 * who is not signed in is sent to the application's login by reloading the page, which the application protects
 * with a security constraint in its {@code web.xml}. The service checks the role again on every force-release, for
 * the caller the container knows at that moment; the view shows its refusal (a login that lapsed while the console
 * stayed open gets a prompt to sign in again).
 *
 * <p>From top to bottom: a tile per store ({@link StoreTiles}: reachable or not, live locks, this server's
 * acquisitions/s, busy/s and p99 wait over the last minute), the filters and the grid of live locks, this server's
 * charts of the last 15 minutes and its most contended lock templates ({@link ActivityPanel}), and the stores'
 * history ({@link HistoryPanel}). Clicking a row opens its {@link LockDetail}, with the callers of this server that
 * wait for it.
 *
 * <p>Live: the view refreshes every {@code exclusive.console.refresh-millis} (changes other servers made, the
 * remaining time counting down, the statistics), and at once, through server push, when a lock changes in this JVM.
 * Every refresh asks the service, which shares what it reads among all consoles of this server.
 *
 * @serial exclude
 */
@Dependent
public class LockConsoleView extends VerticalLayout implements BeforeEnterObserver, HasDynamicTitle {

    /** The grid part a row's cells get for {@link ChangedRows#HIGHLIGHT} after it changed. */
    static final String CHANGED_PART = "exclusive-changed";

    private final LockConsoleService service;
    private final ConsoleSettings settings;
    private final ConsoleUpdates updates;

    private final TextField name = new TextField("Name");
    private final Select<NameMatch> match = new Select<>();
    private final MultiSelectComboBox<String> stores = new MultiSelectComboBox<>("Stores");
    private final Div banners = new Div();
    private final Grid<LockInfo> grid = new Grid<>();
    private final HistoryPanel history = new HistoryPanel();
    private final StoreTiles tiles = new StoreTiles();
    private final ActivityPanel activity = new ActivityPanel();
    private final List<Registration> liveRegistrations = new ArrayList<>();
    private final List<Component> consoleParts = new ArrayList<>();
    private final ChangedRows changedRows = new ChangedRows();

    private boolean allowed;
    private String user = "";
    private ZoneId zone = ZoneId.systemDefault();
    private LockSnapshot snapshot = LockSnapshot.empty();
    private List<String> shownBanners = List.of();
    private LockDetail openDetail;

    /**
     * @param service  the console's service: listing and force-release
     * @param settings the console's settings
     * @param updates  the lock events this view follows while it is shown
     */
    @Inject
    public LockConsoleView(LockConsoleService service, ConsoleSettings settings, ConsoleUpdates updates) {
        this.service = service;
        this.settings = settings;
        this.updates = updates;
        // the page scrolls: the tiles, the grid, the charts and the history one below the other
        setWidthFull();
        addClassName("exclusive-console");
    }

    @Override
    public String getPageTitle() {
        return "Locks · Exclusive";
    }

    @Override
    public void beforeEnter(BeforeEnterEvent event) {
        VaadinRequest request = VaadinRequest.getCurrent();
        Principal principal = request == null ? null : request.getUserPrincipal();
        ConsoleAccess access = ConsoleAccess.decide(
                principal, request == null ? role -> false : request::isUserInRole, settings.role());
        if (access == ConsoleAccess.LOGIN_REQUIRED && event.getTrigger() != NavigationTrigger.PAGE_LOAD) {
            // a full page load lets the container's login (FORM or BASIC) protect the console's path
            event.getUI().getPage().setLocation(event.getLocation().getPathWithQueryParameters());
        }
        enter(access, principal == null ? "" : principal.getName());
    }

    /** Shows the console, or the page that says why not. */
    void enter(ConsoleAccess access, String userName) {
        allowed = access == ConsoleAccess.ALLOWED;
        user = userName;
        removeAll();
        switch (access) {
            case ALLOWED -> showConsole();
            case LOGIN_REQUIRED ->
                showRefusal(
                        "Sign in required",
                        "The lock console is only for signed-in users in"
                                + " role '" + settings.role()
                                + "'. This page asked for no login: the application should protect"
                                + " the path '" + settings.route() + "' with a security constraint in its web.xml.");
            case REFUSED ->
                showRefusal(
                        "Access denied",
                        "You are signed in as '" + userName + "', who is not in" + " role '" + settings.role()
                                + "'. Ask an administrator for that role to use the lock console.");
        }
    }

    private void showRefusal(String title, String text) {
        H2 heading = new H2(title);
        heading.setId("exclusive-console-refused");
        add(heading, new Paragraph(text));
    }

    private void showConsole() {
        if (consoleParts.isEmpty()) {
            buildConsole();
        }
        consoleParts.forEach(this::add);
        refresh();
    }

    private void buildConsole() {
        H2 heading = new H2("Locks held now");
        heading.setId("exclusive-console-title");
        Span scope = new Span("Every live lock of stores " + String.join(", ", service.storeNames())
                + "; refreshed every " + settings.refresh().toMillis() + " ms and on every lock change here. Signed"
                + " in as " + user + ".");
        scope.getStyle().set("color", "var(--lumo-secondary-text-color)").set("font-size", "var(--lumo-font-size-s)");

        name.setPlaceholder("e.g. purchase:");
        name.setClearButtonVisible(true);
        name.setValueChangeMode(ValueChangeMode.LAZY);
        name.setId("exclusive-console-name");
        match.setLabel("Match");
        match.setItems(NameMatch.values());
        match.setItemLabelGenerator(mode -> mode == NameMatch.PREFIX ? "Starts with" : "Contains");
        match.setValue(NameMatch.PREFIX);
        stores.setItems(service.storeNames());
        stores.setPlaceholder("All stores");
        stores.setId("exclusive-console-stores");
        name.addValueChangeListener(e -> refresh());
        match.addValueChangeListener(e -> refresh());
        stores.addValueChangeListener(e -> refresh());
        HorizontalLayout filters = new HorizontalLayout(name, match, stores);
        filters.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.BASELINE);

        banners.setId("exclusive-console-banners");
        banners.setWidthFull();

        configureGrid();
        // a changed row's cells flash and fade; ::part reaches the grid's cells from the page, without a theme
        Html changedStyle = new Html("<style>vaadin-grid::part(" + CHANGED_PART + ") { animation: " + CHANGED_PART
                + " " + ChangedRows.HIGHLIGHT.toMillis() + "ms ease-out; } @keyframes " + CHANGED_PART
                + " { from { background-color: var(--lumo-primary-color-50pct); }"
                + " to { background-color: var(--lumo-base-color); } }</style>");
        consoleParts.addAll(List.of(heading, scope, tiles, filters, banners, grid, activity, history, changedStyle));
    }

    private void configureGrid() {
        grid.setId("exclusive-console-grid");
        grid.setWidthFull();
        // the first screen: the tiles and filters above, the grid down to the window's bottom, never under 320 px
        grid.setHeight("max(320px, calc(100vh - 390px))");
        grid.addThemeVariants(GridVariant.LUMO_ROW_STRIPES, GridVariant.LUMO_COMPACT);
        // the body in the header's font size: the columns then fit 1024 px and read as one table
        grid.getStyle()
                .set("font-size", "var(--lumo-font-size-s)")
                .set("--vaadin-grid-cell-padding", "var(--lumo-space-xs)");
        // widths in px, the same for a header cell and its body cell (an em is each cell's own font size, so em
        // widths set the header off from its column); fixed, because auto width is measured on the first rows,
        // often none at all. The fixed columns and the minimum of the others, with narrow cell padding, fit a 1024 px
        // window; a fence (up to 16 digits) shows in full.
        grid.addColumn(LockInfo::store)
                .setHeader("Store")
                .setKey("store")
                .setTooltipGenerator(LockInfo::store)
                .setSortProperty(LockColumn.STORE.name())
                .setWidth("64px")
                .setFlexGrow(0);
        grid.addColumn(lock -> ConsoleFormat.shown(lock.name()))
                .setHeader("Name")
                .setKey("name")
                .setTooltipGenerator(lock -> ConsoleFormat.shown(lock.name()))
                .setSortProperty(LockColumn.NAME.name())
                .setWidth("90px")
                .setFlexGrow(2);
        grid.addColumn(lock -> ConsoleFormat.shown(holder(lock.holder())))
                .setHeader("Holder")
                .setKey("holder")
                .setTooltipGenerator(lock -> ConsoleFormat.shown(lock.holder().toString()))
                .setSortProperty(LockColumn.HOLDER.name())
                .setWidth("100px")
                .setFlexGrow(2);
        grid.addColumn(lock -> ConsoleFormat.shown(lock.holder().purpose()))
                .setHeader("Purpose")
                .setKey("purpose")
                .setTooltipGenerator(lock -> ConsoleFormat.shown(lock.holder().purpose()))
                .setSortProperty(LockColumn.PURPOSE.name())
                .setWidth("90px")
                .setFlexGrow(1);
        grid.addColumn(lock -> ConsoleFormat.instant(lock.acquiredAt(), zone))
                .setHeader("Acquired at")
                .setKey("acquired")
                .setSortProperty(LockColumn.ACQUIRED_AT.name())
                .setWidth("138px")
                .setFlexGrow(0);
        grid.addColumn(lock -> ConsoleFormat.instant(lock.expiresAt(), zone))
                .setHeader("Expires at")
                .setKey("expires")
                .setSortProperty(LockColumn.EXPIRES_AT.name())
                .setWidth("138px")
                .setFlexGrow(0);
        grid.addColumn(lock -> ConsoleFormat.remaining(lock.remaining()))
                .setHeader("Remaining")
                .setKey("remaining")
                .setSortProperty(LockColumn.REMAINING.name())
                .setWidth("100px")
                .setFlexGrow(0)
                .setTextAlign(ColumnTextAlign.END);
        grid.addColumn(LockInfo::fence)
                .setHeader("Fence")
                .setKey("fence")
                .setTooltipGenerator(lock -> "Fence " + lock.fence())
                .setSortProperty(LockColumn.FENCE.name())
                .setWidth("140px")
                .setFlexGrow(0)
                .setTextAlign(ColumnTextAlign.END);
        // a Lit template, not a component per row: the grid re-renders every second and keeps these elements
        grid.addColumn(LitRenderer.<LockInfo>of("<vaadin-button theme=\"error small tertiary\""
                                + " class=\"exclusive-force-release\" data-lock=\"${item.name}\" data-store=\"${item.store}\""
                                + " @click=\"${forceRelease}\">Force release</vaadin-button>")
                        .withProperty("name", LockInfo::name)
                        .withProperty("store", LockInfo::store)
                        .withFunction("forceRelease", this::confirmForceRelease))
                .setKey("actions")
                .setWidth("112px")
                .setFlexGrow(0)
                .setFrozenToEnd(true);
        grid.setItems(this::fetch, query -> snapshot.size());
        grid.addItemClickListener(click -> {
            // the row's own force-release button opens its confirmation, not the detail as well
            if (!"actions"
                    .equals(click.getColumn() == null ? null : click.getColumn().getKey())) {
                openDetail(click.getItem());
            }
        });
        grid.setPartNameGenerator(lock -> changedRows.highlighted(lock, System.nanoTime()) ? CHANGED_PART : null);
    }

    /**
     * Opens a lock's detail; its force-release button, shown only to a caller the service lets force-release, goes
     * through the same confirmation as the row's.
     *
     * @return the detail, open
     */
    LockDetail openDetail(LockInfo lock) {
        LockDetail detail = new LockDetail(
                lock, zone, service.waitingOn(lock), service.mayForceRelease() ? this::confirmForceRelease : null);
        detail.addOpenedChangeListener(change -> {
            if (!change.isOpened() && openDetail == detail) {
                openDetail = null;
            }
        });
        openDetail = detail;
        detail.open();
        return detail;
    }

    private static String holder(LockHolder holder) {
        return holder.thread().isEmpty() ? holder.instance() : holder.instance() + " · " + holder.thread();
    }

    /** The grid's lazy data source: one page of the current snapshot, no store call. */
    Stream<LockInfo> fetch(Query<LockInfo, Void> query) {
        return snapshot.page(sorts(query.getSortOrders()), query.getOffset(), query.getLimit()).stream();
    }

    /** @return the filter the fields describe */
    LockFilter filter() {
        return new LockFilter(name.getValue().strip(), match.getValue(), stores.getValue());
    }

    /** @return the grid's sort orders as the service's sort keys; properties it does not know are ignored */
    static List<LockSort> sorts(List<QuerySortOrder> orders) {
        List<LockSort> sorts = new ArrayList<>();
        for (QuerySortOrder order : orders) {
            for (LockColumn column : LockColumn.values()) {
                if (column.name().equals(order.getSorted())) {
                    sorts.add(new LockSort(column, order.getDirection() == SortDirection.DESCENDING));
                }
            }
        }
        return sorts;
    }

    private void showBanners(LockSnapshot page) {
        List<String> texts = new ArrayList<>();
        for (StoreProblem problem : page.problems()) {
            texts.add("Store '" + problem.store() + "' cannot be listed: " + problem.message()
                    + ". Its locks are missing below; the other stores are listed.");
        }
        page.truncated().stream()
                .sorted()
                .forEach(store -> texts.add("Store '" + store + "' holds more than " + service.scanLimit()
                        + " locks under this filter's prefix; the console reads " + service.scanLimit()
                        + " of them, which ones is up to the store. Narrow the filter with a name prefix to see the"
                        + " others."));
        if (texts.equals(shownBanners)) {
            return;
        }
        shownBanners = texts;
        banners.removeAll();
        for (int i = 0; i < texts.size(); i++) {
            boolean problem = i < page.problems().size();
            Div banner = new Div(texts.get(i));
            banner.addClassName(problem ? "exclusive-store-problem" : "exclusive-store-truncated");
            banner.getStyle()
                    .set("padding", "var(--lumo-space-s) var(--lumo-space-m)")
                    .set("margin-bottom", "var(--lumo-space-xs)")
                    .set("border-radius", "var(--lumo-border-radius-m)")
                    .set("background", problem ? "var(--lumo-error-color-10pct)" : "var(--lumo-contrast-5pct)")
                    .set("color", problem ? "var(--lumo-error-text-color)" : "var(--lumo-body-text-color)");
            banners.add(banner);
        }
    }

    /** @return the locks the grid pages now, with the stores' problems */
    LockSnapshot snapshot() {
        return snapshot;
    }

    /** @return the banners' texts */
    List<String> banners() {
        return shownBanners;
    }

    /** @return the grid, for tests */
    Grid<LockInfo> grid() {
        return grid;
    }

    /** @return the store tiles, for tests */
    StoreTiles tiles() {
        return tiles;
    }

    /** @return the charts, for tests */
    ActivityPanel activity() {
        return activity;
    }

    /** @return the history panel, for tests */
    HistoryPanel history() {
        return history;
    }

    /** Re-reads the stores, then the grid re-renders the rows on screen from the new snapshot. */
    void refresh() {
        if (!allowed) {
            return;
        }
        LockFilter filter = filter();
        snapshot = service.read(filter);
        changedRows.update(snapshot.page(LockSort.DEFAULT, 0, snapshot.size()), System.nanoTime());
        showBanners(snapshot);
        grid.setEmptyStateText(
                filter.equals(LockFilter.all()) ? "No lock is held right now." : "No lock matches the filter.");
        grid.getDataProvider().refreshAll();
        tiles.show(service.tiles());
        activity.show(service.activity(), zone);
        history.show(service.history(), zone);
        if (openDetail != null) {
            openDetail.showWaiting(service.waitingOn(openDetail.lock()));
        }
    }

    private void confirmForceRelease(LockInfo lock) {
        Div details = new Div();
        details.add(
                new Paragraph("Lock: " + ConsoleFormat.shown(lock.name()) + " (store " + lock.store() + ", fence "
                        + lock.fence() + ")"),
                new Paragraph("Holder: " + lock.holder()),
                new Paragraph("Expires at: " + ConsoleFormat.instant(lock.expiresAt(), zone) + " (in "
                        + ConsoleFormat.remaining(lock.remaining()) + " when listed)"),
                new Paragraph("The holder is not told: its work may still be running while someone else takes the"
                        + " lock."));
        ConfirmDialog dialog = new ConfirmDialog();
        dialog.setId("exclusive-force-release-dialog");
        dialog.setHeader("Force-release this lock?");
        dialog.setText(details);
        dialog.setCancelable(true);
        dialog.setConfirmText("Force release");
        dialog.setConfirmButtonTheme("error primary");
        dialog.addConfirmListener(e -> forceRelease(lock));
        dialog.open();
    }

    /**
     * Asks the service, which checks the caller itself: a refusal is shown here, never as Vaadin's "Internal error".
     */
    void forceRelease(LockInfo lock) {
        try {
            ForceReleaseOutcome outcome = service.forceRelease(lock);
            if (outcome == ForceReleaseOutcome.RELEASED) {
                notify(
                        "Released '" + ConsoleFormat.shown(lock.name()) + "' in store '" + lock.store() + "'.",
                        NotificationVariant.LUMO_SUCCESS);
            } else {
                notify(
                        "'" + ConsoleFormat.shown(lock.name()) + "' in store '" + lock.store()
                                + "' was already released.",
                        NotificationVariant.LUMO_CONTRAST);
            }
        } catch (ForceReleaseRefusedException refused) {
            if (refused.signInRequired()) {
                promptSignIn();
            } else {
                notify(
                        "You are no longer in role '" + refused.role() + "': nothing was released.",
                        NotificationVariant.LUMO_ERROR);
                stopLiveUpdates();
                enter(ConsoleAccess.REFUSED, refused.callerName().orElse(""));
            }
            return;
        } catch (RuntimeException e) {
            notify(
                    "Could not force-release '" + ConsoleFormat.shown(lock.name()) + "': " + ConsoleFormat.failure(e),
                    NotificationVariant.LUMO_ERROR);
        }
        refresh();
    }

    /**
     * The login lapsed while the console stayed open (a container login that expires before the HTTP session does,
     * while Vaadin's requests go to paths the application need not protect): reloading the console's own path,
     * which the application protects, lets the container ask for the login again and come back here.
     */
    private void promptSignIn() {
        Notification notification = new Notification();
        notification.setId("exclusive-console-sign-in");
        notification.addThemeVariants(NotificationVariant.LUMO_WARNING);
        notification.setPosition(Notification.Position.MIDDLE);
        notification.setDuration(0);
        Button signIn = new Button("Sign in again", click -> {
            notification.close();
            click.getSource().getUI().ifPresent(ui -> ui.getPage().reload());
        });
        signIn.setId("exclusive-console-sign-in-again");
        signIn.addThemeVariants(ButtonVariant.LUMO_PRIMARY);
        Button later = new Button("Close", click -> notification.close());
        HorizontalLayout content = new HorizontalLayout(
                new Span("Your sign-in has lapsed: nothing was released. Sign in again to use the lock console."),
                signIn,
                later);
        content.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.CENTER);
        notification.add(content);
        notification.open();
    }

    private static void notify(String text, NotificationVariant variant) {
        Notification notification = new Notification(text, 5000, Notification.Position.BOTTOM_START);
        notification.addThemeVariants(variant);
        notification.addClassName("exclusive-console-notification");
        notification.open();
    }

    @Override
    protected void onAttach(AttachEvent event) {
        super.onAttach(event);
        if (!allowed) {
            return;
        }
        UI ui = event.getUI();
        if (!ui.getPushConfiguration().getPushMode().isEnabled()) {
            // the application may have no @Push of its own; XHR up, WebSocket down keeps the caller's login on
            // every request the console handles
            ui.getPushConfiguration().setTransport(Transport.WEBSOCKET_XHR);
            ui.getPushConfiguration().setPushMode(PushMode.AUTOMATIC);
        }
        ui.setPollInterval((int) settings.refresh().toMillis());
        liveRegistrations.add(ui.addPollListener(e -> refresh()));
        Runnable unsubscribe = updates.subscribe(() -> {
            try {
                ui.access(this::refresh);
            } catch (UIDetachedException closed) {
                // the tab was closed: onDetach unsubscribes
            }
        });
        liveRegistrations.add(unsubscribe::run);
        ui.getPage().retrieveExtendedClientDetails(details -> {
            try {
                zone = ZoneId.of(details.getTimeZoneId());
                refresh();
            } catch (RuntimeException unknownZone) {
                // keep the server's zone
            }
        });
    }

    @Override
    protected void onDetach(DetachEvent event) {
        stopLiveUpdates();
        event.getUI().setPollInterval(-1);
        super.onDetach(event);
    }

    private void stopLiveUpdates() {
        liveRegistrations.forEach(Registration::remove);
        liveRegistrations.clear();
        getUI().ifPresent(ui -> ui.setPollInterval(-1));
    }
}

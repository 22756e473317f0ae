package dev.exclusive.admin;

import com.vaadin.flow.component.Html;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.H3;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import dev.exclusive.AuditRecord;
import dev.exclusive.LockHolder;
import dev.exclusive.admin.internal.ConsoleFormat;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The console's History: the recent force-releases and lost leases of every store, as the stores' audit trails hold
 * them (so the actions of every server on a store show, and survive restarts), newest first: when, store, what
 * happened, the lock, the hold it happened to (fence and holder), who did it, and what became of the hold. The view
 * gives it a new {@link LockHistory} at each refresh; it never reads a store.
 *
 * @serial exclude
 */
public class HistoryPanel extends VerticalLayout {

    private static final String GRID_ID = "exclusive-console-history-grid";

    private final Grid<LockHistory.Entry> grid = new Grid<>();
    private final Span problems = new Span();
    private ZoneId zone = ZoneId.systemDefault();
    private LockHistory history = LockHistory.empty();

    /** An empty panel; {@link #show} fills it. */
    public HistoryPanel() {
        setId("exclusive-console-history");
        setPadding(false);
        setSpacing(false);
        setWidthFull();
        H3 heading = new H3("History");
        heading.getStyle().set("margin", "var(--lumo-space-s) 0 var(--lumo-space-xs) 0");
        Span scope = new Span("Recent force-releases and lost leases, from every server, as each store keeps them.");
        scope.getStyle().set("color", "var(--lumo-secondary-text-color)").set("font-size", "var(--lumo-font-size-s)");
        problems.setId("exclusive-console-history-problems");
        problems.getStyle().set("color", "var(--lumo-error-text-color)").set("font-size", "var(--lumo-font-size-s)");
        problems.setVisible(false);
        configureGrid();
        // a lock name is one long word ("demo:it:lease:expiry:3452703771429608590"): it breaks anywhere rather than
        // run under the next column; the cells' contents are in the page's DOM, so a page style reaches them
        Html breakLongWords = new Html(
                "<style>#" + GRID_ID + " > vaadin-grid-cell-content" + " { overflow-wrap: anywhere; }</style>");
        add(heading, scope, problems, grid, breakLongWords);
    }

    private void configureGrid() {
        grid.setId(GRID_ID);
        grid.setWidthFull();
        grid.setHeight("260px");
        // a hold (fence, instance, thread, purpose), a lock name and an outcome are what an operator reads whole: they
        // wrap within their column instead of ending in an ellipsis (the tooltips stay, for a copy of the text)
        grid.addThemeVariants(
                GridVariant.LUMO_ROW_STRIPES, GridVariant.LUMO_COMPACT, GridVariant.LUMO_WRAP_CELL_CONTENT);
        // the same font size and px widths as the lock grid, so headers sit over their columns
        grid.getStyle()
                .set("font-size", "var(--lumo-font-size-s)")
                .set("--vaadin-grid-cell-padding", "var(--lumo-space-xs)");
        grid.addColumn(entry -> ConsoleFormat.instant(entry.record().at(), zone))
                .setHeader("When")
                .setKey("when")
                .setWidth("138px")
                .setFlexGrow(0);
        grid.addColumn(LockHistory.Entry::store)
                .setHeader("Store")
                .setKey("store")
                .setTooltipGenerator(LockHistory.Entry::store)
                .setWidth("64px")
                .setFlexGrow(0);
        grid.addColumn(entry -> kind(entry.record().kind()))
                .setHeader("What")
                .setKey("kind")
                .setWidth("104px")
                .setFlexGrow(0);
        grid.addColumn(entry -> ConsoleFormat.shown(entry.record().lockName()))
                .setHeader("Lock")
                .setKey("lock")
                .setTooltipGenerator(entry -> ConsoleFormat.shown(entry.record().lockName()))
                .setWidth("150px")
                .setFlexGrow(0);
        grid.addColumn(entry -> hold(entry.record()))
                .setHeader("Hold: fence · holder")
                .setKey("hold")
                .setTooltipGenerator(entry -> hold(entry.record()))
                .setWidth("120px")
                .setFlexGrow(5);
        grid.addColumn(entry -> entry.record().actor())
                .setHeader("By")
                .setKey("actor")
                .setTooltipGenerator(entry -> entry.record().actor())
                .setWidth("100px")
                .setFlexGrow(0);
        grid.addColumn(entry -> entry.record().detail())
                .setHeader("Outcome")
                .setKey("detail")
                .setTooltipGenerator(entry -> entry.record().detail())
                .setWidth("120px")
                .setFlexGrow(2);
        grid.setEmptyStateText("No force-release or lost lease recorded.");
        grid.setItems(List.of());
    }

    /**
     * Shows {@code next}: its records in the grid, and the stores whose trail could not be read above it.
     *
     * @param next     the history to show
     * @param viewZone the viewer's time zone
     */
    public void show(LockHistory next, ZoneId viewZone) {
        zone = viewZone;
        if (!next.equals(history)) {
            history = next;
            grid.setItems(next.entries());
        }
        String text = next.problems().stream()
                .map(problem -> "Store '" + problem.store() + "': history cannot be read: " + problem.message())
                .collect(Collectors.joining("; "));
        problems.setText(text);
        problems.setVisible(!text.isEmpty());
    }

    /** @return the rows shown, for tests */
    List<LockHistory.Entry> rows() {
        return history.entries();
    }

    /** @return the text of the stores whose trail could not be read; empty when none, for tests */
    String problemText() {
        return problems.isVisible() ? problems.getText() : "";
    }

    /** @return the grid, for tests */
    Grid<LockHistory.Entry> grid() {
        return grid;
    }

    static String kind(AuditRecord.Kind kind) {
        return switch (kind) {
            case FORCE_RELEASED -> "Force-released";
            case LEASE_LOST -> "Lease lost";
        };
    }

    /** {@code 1764… · instance · thread · purpose} (the fence first), or a dash when no hold was found. */
    static String hold(AuditRecord record) {
        if (!record.hasHold()) {
            return "—";
        }
        LockHolder holder = record.holder();
        StringBuilder text = new StringBuilder().append(record.fence());
        for (String part : List.of(holder.instance(), holder.thread(), holder.purpose())) {
            if (!part.isEmpty()) {
                text.append(" · ").append(part);
            }
        }
        return text.toString();
    }
}

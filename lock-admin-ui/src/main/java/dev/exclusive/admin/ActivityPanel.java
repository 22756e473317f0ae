package dev.exclusive.admin;

import com.vaadin.flow.component.grid.ColumnTextAlign;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.Div;
import com.vaadin.flow.component.html.H3;
import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.data.renderer.LitRenderer;
import dev.exclusive.LockStatistics.GroupContention;
import dev.exclusive.admin.internal.ConsoleFormat;
import dev.exclusive.admin.internal.SvgChart;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The console's charts: this server's acquisitions, busy answers and waits per second over the last 15 minutes,
 * three small server-rendered SVG line charts, and a table of the most contended lock templates with their p99 wait.
 * The view gives it the service's {@link ConsoleActivity} at each refresh; the charts are drawn again only when it
 * changed (once per bucket) or the viewer's zone did. It never reads a store.
 *
 * @serial exclude
 */
public class ActivityPanel extends VerticalLayout {

    /** The charts: what each shows, the bucket's value it draws, and its colour. */
    enum Chart {
        ACQUISITIONS("Acquisitions", ConsoleActivity.Bucket::acquisitionsPerSecond, "var(--lumo-primary-color)"),
        BUSY("Busy answers", ConsoleActivity.Bucket::busyPerSecond, "var(--lumo-error-color)"),
        WAITS("Waits", ConsoleActivity.Bucket::waitsPerSecond, "var(--lumo-warning-text-color, #a35b00)");

        final String title;
        final ToDoubleFunction<ConsoleActivity.Bucket> value;
        final String color;

        Chart(String title, ToDoubleFunction<ConsoleActivity.Bucket> value, String color) {
            this.title = title;
            this.value = value;
            this.color = color;
        }

        String id() {
            return "exclusive-chart-" + name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Div[] charts = new Div[Chart.values().length];
    private final Grid<GroupContention> contended = new Grid<>();
    private ConsoleActivity activity;
    private ZoneId zone;

    /** An empty panel; {@link #show} fills it. */
    public ActivityPanel() {
        setId("exclusive-console-activity");
        setPadding(false);
        setSpacing(false);
        setWidthFull();
        H3 heading = new H3("Activity on this server");
        heading.getStyle().set("margin", "var(--lumo-space-m) 0 var(--lumo-space-xs) 0");
        Span scope = new Span("This server's own calls over the last 15 minutes (each server counts its own), per"
                + " second, averaged over 5 s.");
        scope.getStyle().set("color", "var(--lumo-secondary-text-color)").set("font-size", "var(--lumo-font-size-s)");

        Div row = new Div();
        row.setId("exclusive-console-charts");
        row.setWidthFull();
        row.getStyle()
                .set("display", "flex")
                .set("flex-wrap", "wrap")
                // on a page wider than three charts at their widest, the room left goes between them, so the last
                // one ends where the grid and the tables do
                .set("justify-content", "space-between")
                .set("gap", "var(--lumo-space-m)")
                .set("margin-top", "var(--lumo-space-s)");
        for (Chart chart : Chart.values()) {
            Div box = new Div();
            box.setId(chart.id());
            box.addClassName("exclusive-chart-box");
            box.getStyle()
                    .set("flex", "1 1 280px")
                    .set("min-width", "0")
                    // drawn 300 units wide: at most 1.4 times that, so that its text stays the size of the page's
                    .set("max-width", "420px")
                    .set("box-sizing", "border-box")
                    .set("padding", "var(--lumo-space-s)")
                    .set("border", "1px solid var(--lumo-contrast-10pct)")
                    .set("border-radius", "var(--lumo-border-radius-l)");
            charts[chart.ordinal()] = box;
            row.add(box);
        }

        H4 top = new H4("Most contended lock templates, last 15 minutes");
        top.getStyle().set("margin", "var(--lumo-space-m) 0 var(--lumo-space-xs) 0");
        configureGrid();
        add(heading, scope, row, top, contended);
    }

    private void configureGrid() {
        contended.setId("exclusive-console-contended");
        contended.setWidthFull();
        contended.setAllRowsVisible(true);
        contended.addThemeVariants(GridVariant.LUMO_ROW_STRIPES, GridVariant.LUMO_COMPACT);
        contended
                .getStyle()
                .set("font-size", "var(--lumo-font-size-s)")
                .set("--vaadin-grid-cell-padding", "var(--lumo-space-xs)");
        contended
                .addColumn(GroupContention::group)
                .setHeader("Lock template")
                .setKey("group")
                .setTooltipGenerator(GroupContention::group)
                .setWidth("200px")
                .setFlexGrow(3);
        contended
                .addColumn(GroupContention::store)
                .setHeader("Store")
                .setKey("store")
                .setTooltipGenerator(GroupContention::store)
                .setWidth("80px")
                .setFlexGrow(0);
        // the count with a bar scaled to the most contended template's, so the ranking reads at a glance
        contended
                .addColumn(LitRenderer.<GroupContention>of("<div style=\"display:flex;align-items:center;gap:6px\">"
                                + "<div style=\"flex:0 0 90px;height:8px;background:var(--lumo-contrast-5pct);"
                                + "border-radius:2px\"><div class=\"exclusive-contended-bar\" style=\"height:8px;"
                                + "width:${item.share}%;background:var(--lumo-error-color-50pct);border-radius:2px\">"
                                + "</div></div><span>${item.count}</span></div>")
                        .withProperty("share", this::share)
                        .withProperty("count", group -> Long.toString(group.contended())))
                .setHeader("Contended")
                .setKey("contended")
                .setTooltipGenerator(group -> group.contended()
                        + " busy answers, timed-out waits and waits (a wait that ran out counts twice)")
                .setWidth("170px")
                .setFlexGrow(0);
        contended
                .addColumn(group -> Long.toString(group.acquisitions()))
                .setHeader("Acquired")
                .setKey("acquisitions")
                .setWidth("90px")
                .setFlexGrow(0)
                .setTextAlign(ColumnTextAlign.END);
        contended
                .addColumn(group -> ConsoleFormat.p99(group.p99Wait()))
                .setHeader("p99 wait")
                .setKey("p99")
                .setTooltipGenerator(group ->
                        "The upper bound of the histogram bucket the 99th percentile of the" + " waits falls in")
                .setWidth("100px")
                .setFlexGrow(0)
                .setTextAlign(ColumnTextAlign.END);
        contended.setEmptyStateText("No lock was contended on this server in the last 15 minutes.");
        contended.setItems(List.of());
    }

    private int share(GroupContention group) {
        long most = activity == null
                ? 0
                : activity.mostContended().stream()
                        .mapToLong(GroupContention::contended)
                        .max()
                        .orElse(0);
        return most == 0 ? 0 : (int) Math.max(1, Math.round(100.0 * group.contended() / most));
    }

    /**
     * Shows {@code next}: draws the charts again if it or the zone changed.
     *
     * @param next     the activity to show
     * @param viewZone the viewer's time zone, for the charts' clock times
     */
    public void show(ConsoleActivity next, ZoneId viewZone) {
        if (next.equals(activity) && viewZone.equals(zone)) {
            return;
        }
        boolean contendedChanged = activity == null || !next.mostContended().equals(activity.mostContended());
        activity = next;
        zone = viewZone;
        for (Chart chart : Chart.values()) {
            charts[chart.ordinal()].getElement().setProperty("innerHTML", svg(next, chart, viewZone));
        }
        if (contendedChanged) {
            contended.setItems(next.mostContended());
        }
    }

    /** @return the chart's SVG markup for {@code activity} */
    static String svg(ConsoleActivity activity, Chart chart, ZoneId zone) {
        Objects.requireNonNull(activity, "activity");
        List<SvgChart.Point> points = activity.buckets().stream()
                .map(bucket -> new SvgChart.Point(bucket.end(), chart.value.applyAsDouble(bucket)))
                .toList();
        return new SvgChart(chart.title, "/s", chart.color, activity.from(), activity.to(), points).render(zone);
    }

    /** @return the SVG markup shown for {@code chart}, for tests */
    String shownSvg(Chart chart) {
        return charts[chart.ordinal()].getElement().getProperty("innerHTML", "");
    }

    /** @return the activity shown; {@code null} before the first {@link #show} */
    ConsoleActivity shown() {
        return activity;
    }

    /** @return the groups the table lists, for tests */
    List<GroupContention> shownContended() {
        return activity == null ? List.of() : activity.mostContended();
    }
}

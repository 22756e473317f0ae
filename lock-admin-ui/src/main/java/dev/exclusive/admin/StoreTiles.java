package dev.exclusive.admin;

import com.vaadin.flow.component.html.Div;
import com.vaadin.flow.component.html.Span;
import dev.exclusive.LockStatistics.StoreActivity;
import dev.exclusive.admin.internal.ConsoleFormat;
import java.text.NumberFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console's "at a glance" row: one tile per configured store, with whether it answers (and why not), its live
 * locks, and this server's acquisitions/s, busy/s and p99 wait over the last minute. The view gives it the service's
 * {@link StoreTile}s at each refresh; it never reads a store. Every value is set as text, never as HTML.
 *
 * @serial exclude
 */
public class StoreTiles extends Div {

    private final Map<String, Tile> tiles = new LinkedHashMap<>();
    private List<StoreTile> shown = List.of();

    /** An empty row; {@link #show} fills it. */
    public StoreTiles() {
        setId("exclusive-console-tiles");
        setWidthFull();
        getStyle()
                .set("display", "flex")
                .set("flex-wrap", "wrap")
                .set("gap", "var(--lumo-space-s)")
                .set("box-sizing", "border-box");
    }

    /**
     * Shows {@code next}: a tile per store, in its order; tiles of stores no longer in it are removed.
     *
     * @param next the tiles to show
     */
    public void show(List<StoreTile> next) {
        if (next.equals(shown)) {
            return;
        }
        shown = next;
        if (!List.copyOf(tiles.keySet())
                .equals(next.stream().map(StoreTile::store).toList())) {
            removeAll();
            tiles.clear();
            for (StoreTile tile : next) {
                Tile view = new Tile(tile.store());
                tiles.put(tile.store(), view);
                add(view);
            }
        }
        next.forEach(tile -> tiles.get(tile.store()).show(tile));
    }

    /** @return the tiles shown, for tests */
    List<StoreTile> shown() {
        return shown;
    }

    /** @return each store's tile as label → text, for tests */
    Map<String, Map<String, String>> texts() {
        Map<String, Map<String, String>> texts = new LinkedHashMap<>();
        tiles.forEach((store, tile) -> texts.put(store, tile.texts()));
        return texts;
    }

    /** One store's tile: its name and state on top, the four figures below, each value over its label. */
    private static final class Tile extends Div {

        private final Span state = new Span();
        private final Span problem = new Span();
        private final Span liveLocks = new Span();
        private final Span acquisitions = new Span();
        private final Span busy = new Span();
        private final Span p99 = new Span();

        Tile(String store) {
            addClassName("exclusive-store-tile");
            getElement().setAttribute("data-store", store);
            getStyle()
                    .set("flex", "1 1 240px")
                    .set("max-width", "480px")
                    .set("min-width", "0")
                    .set("box-sizing", "border-box")
                    .set("padding", "var(--lumo-space-s) var(--lumo-space-m)")
                    .set("border", "1px solid var(--lumo-contrast-10pct)")
                    .set("border-radius", "var(--lumo-border-radius-l)")
                    .set("background", "var(--lumo-base-color)");

            Span name = new Span(store);
            name.addClassName("exclusive-tile-store");
            name.getElement().setAttribute("title", store);
            name.getStyle()
                    .set("font-weight", "600")
                    .set("overflow", "hidden")
                    .set("text-overflow", "ellipsis")
                    .set("white-space", "nowrap")
                    .set("min-width", "0");
            state.addClassName("exclusive-tile-state");
            state.getStyle().set("font-size", "var(--lumo-font-size-s)").set("white-space", "nowrap");
            Div top = new Div(name, state);
            top.getStyle()
                    .set("display", "flex")
                    .set("justify-content", "space-between")
                    .set("align-items", "baseline")
                    .set("gap", "var(--lumo-space-s)");

            problem.addClassName("exclusive-tile-problem");
            problem.getStyle()
                    .set("display", "-webkit-box")
                    .set("-webkit-line-clamp", "2")
                    .set("-webkit-box-orient", "vertical")
                    .set("overflow", "hidden")
                    .set("overflow-wrap", "anywhere")
                    .set("font-size", "var(--lumo-font-size-xs)")
                    .set("color", "var(--lumo-error-text-color)");

            Div figures = new Div(
                    figure(liveLocks, "live locks", "exclusive-tile-live"),
                    figure(acquisitions, "acquired", "exclusive-tile-acquisitions"),
                    figure(busy, "busy", "exclusive-tile-busy"),
                    figure(p99, "p99 wait", "exclusive-tile-p99"));
            figures.getStyle()
                    .set("display", "grid")
                    // each figure as wide as its text, the space left spread between them: a short "3" leaves room
                    // for a long "≤ 150 ms"
                    .set("grid-template-columns", "repeat(4, auto)")
                    .set("justify-content", "space-between")
                    .set("gap", "var(--lumo-space-xs)")
                    .set("margin-top", "var(--lumo-space-xs)");
            add(top, problem, figures);
        }

        private static Div figure(Span value, String label, String cssClass) {
            value.addClassName(cssClass);
            value.getStyle()
                    .set("display", "block")
                    .set("font-size", "var(--lumo-font-size-m)")
                    .set("font-weight", "600")
                    .set("white-space", "nowrap")
                    .set("overflow", "hidden")
                    .set("text-overflow", "ellipsis");
            Span caption = new Span(label);
            caption.getStyle()
                    .set("display", "block")
                    .set("font-size", "var(--lumo-font-size-xs)")
                    .set("color", "var(--lumo-secondary-text-color)")
                    .set("white-space", "nowrap");
            return new Div(value, caption);
        }

        void show(StoreTile tile) {
            StoreActivity minute = tile.lastMinute();
            if (tile.reachable()) {
                state.setText("● reachable");
                state.getStyle().set("color", "var(--lumo-success-text-color)");
                problem.setText("");
                problem.setVisible(false);
                liveLocks.setText(NumberFormat.getIntegerInstance(Locale.ROOT).format(tile.liveLocks())
                        + (tile.moreLocks() ? "+" : ""));
            } else {
                state.setText("● unreachable");
                state.getStyle().set("color", "var(--lumo-error-text-color)");
                problem.setText(tile.problem().orElseThrow());
                problem.getElement().setAttribute("title", tile.problem().orElseThrow());
                problem.setVisible(true);
                liveLocks.setText("—");
            }
            acquisitions.setText(ConsoleFormat.rate(minute.acquisitionsPerSecond()));
            acquisitions
                    .getElement()
                    .setAttribute("title", minute.acquisitions() + " acquisitions by this server in the last minute");
            busy.setText(ConsoleFormat.rate(minute.busyPerSecond()));
            busy.getElement()
                    .setAttribute(
                            "title",
                            minute.busy() + " busy answers and " + minute.timeouts()
                                    + " waits that ran out on this server in the last minute");
            p99.setText(ConsoleFormat.p99(minute.p99Wait()));
            p99.getElement()
                    .setAttribute(
                            "title",
                            "99 % of this server's waits in the last minute took at most this long (the upper bound"
                                    + " of the histogram bucket the 99th percentile falls in)");
        }

        Map<String, String> texts() {
            Map<String, String> texts = new LinkedHashMap<>();
            texts.put("state", state.getText());
            texts.put("problem", problem.getText());
            texts.put("live locks", liveLocks.getText());
            texts.put("acquired", acquisitions.getText());
            texts.put("busy", busy.getText());
            texts.put("p99 wait", p99.getText());
            return texts;
        }
    }
}

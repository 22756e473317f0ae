package dev.exclusive.admin;

import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.button.ButtonVariant;
import com.vaadin.flow.component.dialog.Dialog;
import com.vaadin.flow.component.html.Div;
import com.vaadin.flow.component.html.Span;
import dev.exclusive.LockInfo;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.internal.ConsoleFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One lock in full, opened by clicking its row: everything the grid shortens (the holder's instance, thread and
 * {@code bean#method}, the fence, the full name), whether callers of this server wait for it, and the force-release
 * button for a user who may use it. The view updates the waiters at each refresh while the detail is open.
 *
 * <p>Every value is set as text, never as HTML: a name with {@code <}, {@code &} or quotes shows as typed.
 */
final class LockDetail extends Dialog {

    /** The label of the line that says who of this server waits for the lock. */
    static final String WAITED_ON = "Waited on";

    private final LockInfo lock;
    private final Map<String, String> fields = new LinkedHashMap<>();
    private final List<Button> buttons = new ArrayList<>();
    private Span waitedOn;

    /**
     * @param lock         the lock as the console listed it
     * @param zone         the viewer's time zone
     * @param waiting      the callers of this server waiting for the lock now; empty when none
     * @param forceRelease the console's force-release, with its confirmation; {@code null} for a user who may not
     *                     force-release, who sees no button
     */
    LockDetail(LockInfo lock, ZoneId zone, Optional<LockStatistics.Waiting> waiting, Consumer<LockInfo> forceRelease) {
        this.lock = lock;
        setId("exclusive-lock-detail");
        setHeaderTitle("Lock " + ConsoleFormat.shown(lock.name()));
        // the store's own clock when it answered: acquired and expires read against the same moment
        Instant listedAt = lock.expiresAt().minus(lock.remaining());
        fields.put("Store", lock.store());
        fields.put("Name", ConsoleFormat.shown(lock.name()));
        fields.put("Instance", ConsoleFormat.shown(orNone(lock.holder().instance())));
        fields.put("Thread", ConsoleFormat.shown(orNone(lock.holder().thread())));
        fields.put("Purpose", ConsoleFormat.shown(orNone(lock.holder().purpose())));
        fields.put("Fence", Long.toString(lock.fence()));
        fields.put(
                "Acquired at",
                ConsoleFormat.instant(lock.acquiredAt(), zone) + " ("
                        + ConsoleFormat.remaining(Duration.between(lock.acquiredAt(), listedAt)) + " ago)");
        fields.put(
                "Expires at",
                ConsoleFormat.instant(lock.expiresAt(), zone) + " (in " + ConsoleFormat.remaining(lock.remaining())
                        + " when listed)");
        fields.put(WAITED_ON, waitedOn(waiting));
        fields.put("Owner id", lock.owner());

        Div table = new Div();
        table.addClassName("exclusive-lock-detail-fields");
        table.getStyle()
                .set("display", "grid")
                .set("grid-template-columns", "max-content minmax(0, 1fr)")
                .set("gap", "var(--lumo-space-xs) var(--lumo-space-m)")
                .set("max-width", "min(720px, 90vw)");
        fields.forEach((label, value) -> {
            Span key = new Span(label);
            key.getStyle().set("color", "var(--lumo-secondary-text-color)");
            Span text = new Span(value);
            text.addClassName("exclusive-lock-detail-" + label.toLowerCase().replace(' ', '-'));
            // long names and purposes wrap instead of widening the dialog beyond the window
            text.getStyle().set("overflow-wrap", "anywhere").set("font-family", "var(--lumo-font-family)");
            table.add(key, text);
            if (label.equals(WAITED_ON)) {
                waitedOn = text;
            }
        });
        add(table);

        Button close = new Button("Close", click -> close());
        close.setId("exclusive-lock-detail-close");
        if (forceRelease != null) {
            Button release = new Button("Force release…", click -> {
                close();
                forceRelease.accept(lock);
            });
            release.setId("exclusive-lock-detail-force-release");
            release.addThemeVariants(ButtonVariant.LUMO_ERROR);
            buttons.add(release);
        }
        buttons.add(close);
        buttons.forEach(getFooter()::add);
    }

    /**
     * Shows who of this server waits for the lock now.
     *
     * @param waiting the callers of this server waiting for it; empty when none
     */
    void showWaiting(Optional<LockStatistics.Waiting> waiting) {
        String text = waitedOn(waiting);
        fields.put(WAITED_ON, text);
        waitedOn.setText(text);
    }

    /** @return the lock shown */
    LockInfo lock() {
        return lock;
    }

    static String waitedOn(Optional<LockStatistics.Waiting> waiting) {
        return waiting.map(w -> w.callers() == 1
                        ? "1 caller of this server is waiting for it, for " + ConsoleFormat.elapsed(w.longest())
                                + " so far"
                        : w.callers() + " callers of this server are waiting for it, the longest for "
                                + ConsoleFormat.elapsed(w.longest()) + " so far")
                .orElse("no caller of this server is waiting");
    }

    private static String orNone(String part) {
        return part.isEmpty() ? "(not given)" : part;
    }

    /** @return each label and the text shown for it, in the dialog's order */
    Map<String, String> fields() {
        return fields;
    }

    /** @return the footer's buttons: force release, when allowed, then close */
    List<Button> buttons() {
        return buttons;
    }
}

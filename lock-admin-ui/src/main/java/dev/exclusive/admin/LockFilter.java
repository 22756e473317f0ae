package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which live locks the console lists.
 *
 * @param text   the name filter; empty for every name
 * @param match  how {@code text} matches a name
 * @param stores the stores to list; empty for every configured store
 */
public record LockFilter(String text, NameMatch match, Set<String> stores) {

    /** How the name filter matches. */
    public enum NameMatch {
        /**
         * The name, without the store's own prefix, starts with the text (case-sensitive). Answered by the stores
         * themselves, so it narrows what they send.
         */
        PREFIX,
        /** The full name contains the text, ignoring case. Every live lock is read and matched here. */
        CONTAINS
    }

    /**
     * Reads a {@code null} text as empty, a {@code null} match as prefix, {@code null} stores as every store.
     *
     * @param text   the name filter
     * @param match  how {@code text} matches a name
     * @param stores the stores to list
     */
    public LockFilter {
        text = Objects.requireNonNullElse(text, "");
        match = Objects.requireNonNullElse(match, NameMatch.PREFIX);
        stores = Set.copyOf(Objects.requireNonNullElse(stores, Set.of()));
    }

    /** @return the filter that lists every live lock of every store */
    public static LockFilter all() {
        return new LockFilter("", NameMatch.PREFIX, Set.of());
    }

    /**
     * @param store a configured store's name
     * @return whether this filter lists the locks of {@code store}
     */
    public boolean includesStore(String store) {
        return stores.isEmpty() || stores.contains(store);
    }

    /** @return the prefix to ask the stores for: the text for {@link NameMatch#PREFIX}, else empty */
    String storePrefix() {
        return match == NameMatch.PREFIX ? text : "";
    }

    /** @return whether the stores' answer to {@link #storePrefix()} is already exactly what this filter lists */
    private boolean answeredByStores() {
        return match == NameMatch.PREFIX || text.isEmpty();
    }

    /** @return whether a lock the stores listed for {@link #storePrefix()} passes the rest of the filter */
    boolean matches(LockInfo lock) {
        return answeredByStores() || lock.name().toLowerCase(Locale.ROOT).contains(text.toLowerCase(Locale.ROOT));
    }
}

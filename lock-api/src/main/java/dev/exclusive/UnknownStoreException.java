package dev.exclusive;

import java.util.Set;
import java.util.TreeSet;

/** A store name, or a store type, that nothing is configured or installed for. */
public class UnknownStoreException extends LockException {

    private static final long serialVersionUID = 1L;

    /** The names (or types) that are known. */
    private final TreeSet<String> known;

    /**
     * @param message   what was unknown, naming the known ones and the fix
     * @param storeName the unknown name (or type)
     * @param known     the names (or types) that are known
     */
    public UnknownStoreException(String message, String storeName, Set<String> known) {
        super(message, null, storeName, null);
        this.known = new TreeSet<>(known);
    }

    /** @return the names (or types) that are known, sorted */
    public Set<String> known() {
        return java.util.Collections.unmodifiableSet(known);
    }
}

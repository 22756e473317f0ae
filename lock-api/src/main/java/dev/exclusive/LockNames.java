package dev.exclusive;

import java.util.regex.Pattern;

/**
 * The one rule for lock names, the same in every store: not {@code null}, not blank, at most
 * {@value #MAX_LENGTH} characters (UTF-16 code units, store prefix not counted), no control characters and no
 * unpaired surrogates (a lone UTF-16 surrogate is not a character: it has no UTF-8 form, so a store that encodes
 * names would map it onto {@code ?} and collide with a real name). Everything else — Unicode, {@code * ? [ ] / \
 * ..}, spaces inside — is allowed, and two different strings always name two different locks.
 */
public final class LockNames {

    /** The longest name a caller may give a lock, store prefix not counted. */
    public static final int MAX_LENGTH = 200;

    /** The longest store prefix. */
    public static final int MAX_PREFIX_LENGTH = 55;

    private static final Pattern STORE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** The longest full name a store receives: a name and a store prefix. Stores accept every name up to it. */
    public static final int MAX_FULL_LENGTH = MAX_LENGTH + MAX_PREFIX_LENGTH;

    /** See {@link #group(String)}; only ever a derived group, {@code <kind>:*}. */
    private static volatile String lastGroup = ":*";

    private LockNames() {}

    /**
     * The group a lock is counted under in metrics and statistics when nobody named one with
     * {@link Lock#group(String)}: the part of {@code name} before its first {@code :}, followed by {@code :*}; a name
     * without {@code :} is its own group. {@code purchase:product:42} and {@code purchase:product:43} are both
     * {@code purchase:*}; {@code nightly-export} is {@code nightly-export}.
     *
     * <p>The rule keeps the number of groups bounded for names built as {@code kind:id}, the convention this library
     * documents. A name whose varying part comes first, or that has no {@code :}, forms one group per name: give
     * such handles a {@link Lock#group(String)}. {@code @Exclusive} methods are grouped by their name template.
     *
     * @param name a lock name, without the store prefix
     * @return its group
     */
    public static String group(String name) {
        int colon = name.indexOf(':');
        if (colon < 0) {
            return name;
        }
        // The last group derived, reused while names of the same kind follow one another (a new handle per call):
        // no new string to build and hash on every call.
        String last = lastGroup;
        if (last.length() == colon + 2 && name.regionMatches(0, last, 0, colon)) {
            return last;
        }
        String group = name.substring(0, colon) + ":*";
        lastGroup = group;
        return group;
    }

    /**
     * Checks a name against the rule.
     *
     * @param name      the name to check
     * @param storeName the store it is meant for, used in the message (may be {@code null})
     * @return {@code name}, unchanged
     * @throws InvalidLockNameException if the name breaks the rule; the message says which part and why
     */
    public static String requireValid(String name, String storeName) {
        return requireValid(name, storeName, MAX_LENGTH);
    }

    /**
     * Checks a full name (store prefix included), as stores receive it: the same rule, with room for the prefix.
     *
     * @param fullName  the full name
     * @param storeName the store, for the message
     * @return {@code fullName}, unchanged
     * @throws InvalidLockNameException if the name breaks the rule
     */
    public static String requireValidFullName(String fullName, String storeName) {
        return requireValid(fullName, storeName, MAX_FULL_LENGTH);
    }

    /**
     * Checks a store's name: letters, digits, {@code _ . -}, starting with a letter or digit, at most 64.
     *
     * @param storeName the name to check
     * @return {@code storeName}, unchanged
     * @throws IllegalArgumentException if it breaks the rule
     */
    public static String requireValidStoreName(String storeName) {
        if (storeName == null || !STORE_NAME.matcher(storeName).matches()) {
            throw new IllegalArgumentException(
                    "Store name must be letters, digits, '_', '.' or '-' (at most 64), got '" + storeName + "'");
        }
        return storeName;
    }

    /**
     * Checks a store's name prefix: at most {@value #MAX_PREFIX_LENGTH} characters, no control characters.
     *
     * @param storeName the store, for the message
     * @param prefix    the prefix; {@code null} means none
     * @return the prefix, {@code ""} for none
     * @throws IllegalArgumentException if it breaks the rule
     */
    public static String requireValidPrefix(String storeName, String prefix) {
        String checked = prefix == null ? "" : prefix;
        if (checked.length() > MAX_PREFIX_LENGTH || checked.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("Store '" + storeName + "': prefix must be at most " + MAX_PREFIX_LENGTH
                    + " characters without control characters, got '" + checked.replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return checked;
    }

    private static String requireValid(String name, String storeName, int maxLength) {
        String where = storeName == null ? "" : " in store '" + storeName + "'";
        if (name == null) {
            throw new InvalidLockNameException("Lock name" + where + " must not be null", null, storeName);
        }
        if (name.isBlank()) {
            throw new InvalidLockNameException(
                    "Lock name" + where + " must not be blank, got '" + name + "'", name, storeName);
        }
        if (name.length() > maxLength) {
            throw new InvalidLockNameException(
                    "Lock name" + where + " must be at most " + maxLength + " characters, got " + name.length() + ": '"
                            + name.substring(0, 40) + "...'",
                    name,
                    storeName);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c)
                        && i + 1 < name.length()
                        && Character.isLowSurrogate(name.charAt(i + 1));
                if (!paired) {
                    throw new InvalidLockNameException(
                            "Lock name" + where + " must not contain an unpaired surrogate, got U+"
                                    + String.format("%04X", (int) c) + " at index " + i
                                    + "; pass whole Unicode characters",
                            name,
                            storeName);
                }
                i++;
                continue;
            }
            if (Character.isISOControl(c)) {
                throw new InvalidLockNameException(
                        "Lock name" + where + " must not contain control characters, got U+"
                                + String.format("%04X", (int) c) + " at index " + i + " in '"
                                + name.replaceAll("\\p{Cntrl}", "?") + "'",
                        name,
                        storeName);
            }
        }
        return name;
    }
}

package dev.exclusive;

import java.util.Objects;

/**
 * Who holds a lock, as operators see it: the registry's instance name (default {@code host/pid}), the
 * thread that acquired it, and the purpose the caller gave ({@code Class#method} for {@code @Exclusive}).
 *
 * <p>Stores keep it as the single string {@link #encode()} returns and give it back through
 * {@link #decode(String)}; both are total functions, so a store never fails on a holder.
 *
 * @param instance the registry's instance name, never {@code null}
 * @param thread   the acquiring thread's name, never {@code null}
 * @param purpose  what the holder is doing, empty when nobody said
 */
public record LockHolder(String instance, String thread, String purpose) {

    private static final char SEPARATOR = '\u001f';
    private static final int MAX_PART = 200;

    /**
     * Makes each part safe to encode: {@code null} becomes empty, control characters spaces, at most 200 characters.
     *
     * @param instance the registry's instance name
     * @param thread   the acquiring thread's name
     * @param purpose  what the holder is doing
     */
    public LockHolder {
        instance = clean(instance);
        thread = clean(thread);
        purpose = clean(purpose);
    }

    /** @return the holder as one string without control characters other than its separators */
    public String encode() {
        return instance + SEPARATOR + thread + SEPARATOR + purpose;
    }

    /**
     * @param encoded a string from {@link #encode()}; anything else becomes the instance part
     * @return the holder it describes
     */
    public static LockHolder decode(String encoded) {
        if (encoded == null) {
            return new LockHolder("", "", "");
        }
        int first = encoded.indexOf(SEPARATOR);
        int second = first < 0 ? -1 : encoded.indexOf(SEPARATOR, first + 1);
        if (second < 0) {
            return new LockHolder(encoded, "", "");
        }
        return new LockHolder(
                encoded.substring(0, first), encoded.substring(first + 1, second), encoded.substring(second + 1));
    }

    /** @return {@code instance / thread / purpose}, leaving out empty parts */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(instance);
        if (!thread.isEmpty()) {
            text.append(" / ").append(thread);
        }
        if (!purpose.isEmpty()) {
            text.append(" / ").append(purpose);
        }
        return text.toString();
    }

    /** Runs on every acquisition, so the common case (nothing to clean) allocates nothing. */
    private static String clean(String part) {
        String text = Objects.requireNonNullElse(part, "");
        boolean control = false;
        for (int i = 0; i < text.length() && !control; i++) {
            control = Character.isISOControl(text.charAt(i));
        }
        if (control) {
            StringBuilder cleaned = new StringBuilder(text.length());
            text.chars().forEach(c -> cleaned.append(Character.isISOControl(c) ? ' ' : (char) c));
            text = cleaned.toString();
        }
        text = text.strip();
        return text.length() > MAX_PART ? text.substring(0, MAX_PART) : text;
    }
}

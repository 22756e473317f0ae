package dev.exclusive.internal;

import dev.exclusive.InvalidLockTokenException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The token format of {@code Lock.token()}: {@code x1.<store>.<name>.<owner>.<ttl ms>}, each text part in
 * unpadded base64url so that any name survives, and a version so the format can change.
 */
public final class Tokens {

    private static final String VERSION = "x1";

    private Tokens() {}

    /** What a token carries. */
    public record Decoded(String storeName, String name, String owner, Duration ttl) {}

    public static String encode(String storeName, String name, String owner, Duration ttl) {
        return VERSION + '.' + text(storeName) + '.' + text(name) + '.' + text(owner) + '.' + ttl.toMillis();
    }

    /**
     * @throws InvalidLockTokenException if {@code token} is not one {@link #encode} made
     */
    public static Decoded decode(String token) {
        if (token == null) {
            throw new InvalidLockTokenException(
                    "Lock token must not be null; pass the string Lock.token() returned", null);
        }
        String[] parts = token.strip().split("\\.", -1);
        if (parts.length != 5 || !VERSION.equals(parts[0])) {
            throw new InvalidLockTokenException(
                    "Not a lock token: '" + abbreviate(token) + "'; pass the string Lock.token() returned, unchanged",
                    null);
        }
        try {
            long ttlMillis = Long.parseLong(parts[4]);
            if (ttlMillis <= 0) {
                throw new NumberFormatException("ttl " + ttlMillis);
            }
            String owner = untext(parts[3]);
            if (owner.isBlank()) {
                throw new IllegalArgumentException("empty owner");
            }
            return new Decoded(untext(parts[1]), untext(parts[2]), owner, Duration.ofMillis(ttlMillis));
        } catch (IllegalArgumentException e) {
            throw new InvalidLockTokenException(
                    "Damaged lock token: '" + abbreviate(token) + "' (" + e.getMessage()
                            + "); pass the string Lock.token() returned, unchanged",
                    e);
        }
    }

    private static String text(String value) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    private static String untext(String value) {
        return new String(Base64.getUrlDecoder().decode(value), StandardCharsets.UTF_8);
    }

    private static String abbreviate(String token) {
        return token.length() <= 60 ? token : token.substring(0, 60) + "...";
    }
}

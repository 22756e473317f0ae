package dev.exclusive.cdi.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Keeps secrets out of everything lock-cdi writes: deployment errors, log lines, health output, {@code toString}.
 * A store setting can hold a secret when its key is {@code url} or ends in {@code password} (any case). Every text
 * passes two rules: URL user info becomes {@code scheme://***@} (also a malformed URL whose password holds
 * {@code # / ?}: everything up to the last {@code @} of the word), and {@code ...password=value} becomes
 * {@code ...password=***}. With the settings known, the values of secret keys (and the user info and password of a
 * URL, also percent-decoded) are replaced wherever they appear, which catches a provider that quotes a password on
 * its own. Values shorter than {@value #SHORTEST} characters are not searched for: replacing them would garble the
 * message and they protect nothing.
 */
final class Secrets {

    static final String MASK = "***";
    static final int SHORTEST = 3;

    /** Rules only: for texts whose settings are unknown (log lines, relayed exceptions). */
    static final Secrets RULES = new Secrets(Map.of());

    /** {@code scheme://user:pass@}, not {@code scheme://[user:password@]} as a usage hint writes it. */
    private static final Pattern USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)(?!\\[)[^\\s'\"<>]*@");

    private static final Pattern PASSWORD_PARAMETER = Pattern.compile(
            "(?i)\\b([a-z0-9_.-]*(?:password|passwd|pwd))(\\s*=\\s*)(?!\\*\\*\\*)[^\\s&;,'\"<>(){}\\[\\]]+");

    /** Secret text → what replaces it, longest first. */
    private final Map<String, String> known;

    private Secrets(Map<String, String> known) {
        this.known = known;
    }

    /** @return whether a store setting's value can hold a secret */
    static boolean isSecretKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.equals("url") || lower.endsWith("password");
    }

    /** @return a setting's value as lock-cdi may show it: a URL without its user info, a password as {@code ***} */
    static String shown(String key, String value) {
        if (!isSecretKey(key) || value == null) {
            return value;
        }
        return key.equalsIgnoreCase("url") ? withoutUserInfo(value) : MASK;
    }

    /** @return the secrets among a store's settings (keys relative to the store, as providers receive them) */
    static Secrets of(Map<String, String> settings) {
        Map<String, String> known = new LinkedHashMap<>();
        settings.forEach((key, value) -> {
            if (value == null || !isSecretKey(key)) {
                return;
            }
            if (key.equalsIgnoreCase("url")) {
                String shown = withoutUserInfo(value);
                if (!shown.equals(value)) {
                    known.put(value, shown);
                    String userInfo = userInfo(value);
                    add(known, userInfo);
                    int colon = userInfo.indexOf(':');
                    if (colon >= 0) {
                        add(known, userInfo.substring(colon + 1));
                    }
                }
            } else {
                add(known, value);
            }
        });
        List<String> longestFirst = new ArrayList<>(known.keySet());
        longestFirst.sort(Comparator.comparingInt(String::length).reversed());
        Map<String, String> ordered = new LinkedHashMap<>();
        longestFirst.forEach(secret -> ordered.put(secret, known.get(secret)));
        return new Secrets(Collections.unmodifiableMap(ordered));
    }

    private static void add(Map<String, String> known, String secret) {
        if (secret.length() >= SHORTEST) {
            known.putIfAbsent(secret, MASK);
            try {
                String decoded = URLDecoder.decode(secret.replace("+", "%2B"), StandardCharsets.UTF_8);
                if (decoded.length() >= SHORTEST) {
                    known.putIfAbsent(decoded, MASK);
                }
            } catch (IllegalArgumentException e) {
                // not percent-encoded: the raw form is all there is
            }
        }
    }

    /** @return the text between {@code scheme://} and the last {@code @}, or empty */
    private static String userInfo(String url) {
        int scheme = url.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = url.lastIndexOf('@');
        return at > start ? url.substring(start, at) : "";
    }

    private static String withoutUserInfo(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        if (scheme < 0 || at < scheme + 3) {
            return url;
        }
        return url.substring(0, scheme + 3) + MASK + url.substring(at);
    }

    /**
     * @param text a message, possibly {@code null}
     * @return the message without user info, password parameters or known secrets
     */
    String mask(String text) {
        if (text == null) {
            return null;
        }
        String masked = text;
        for (Map.Entry<String, String> secret : known.entrySet()) {
            masked = masked.replace(secret.getKey(), secret.getValue());
        }
        masked = USER_INFO.matcher(masked).replaceAll("$1" + MASK + "@");
        return PASSWORD_PARAMETER.matcher(masked).replaceAll("$1$2" + MASK);
    }

    /**
     * @param failure an exception about to be logged
     * @return {@code failure} itself if no message in its chain changes when masked, else a copy of the chain with
     *         masked messages, the same class names (in {@code toString}) and the same stack traces
     */
    Throwable loggable(Throwable failure) {
        if (failure == null || !changes(failure, Collections.newSetFromMap(new IdentityHashMap<>()))) {
            return failure;
        }
        return copy(failure, new IdentityHashMap<>());
    }

    private boolean changes(Throwable failure, Set<Throwable> seen) {
        if (failure == null || !seen.add(failure)) {
            return false;
        }
        String message = failure.getMessage();
        if (message != null && !mask(message).equals(message)) {
            return true;
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            if (changes(suppressed, seen)) {
                return true;
            }
        }
        return changes(failure.getCause(), seen);
    }

    private Throwable copy(Throwable failure, Map<Throwable, Throwable> copies) {
        if (copies.containsKey(failure)) {
            return copies.get(failure); // null while its copy is being made: a cycle ends here
        }
        copies.put(failure, null);
        Throwable cause = failure.getCause() == null ? null : copy(failure.getCause(), copies);
        Masked masked = new Masked(failure.getClass().getName(), mask(failure.getMessage()), cause);
        copies.put(failure, masked);
        masked.setStackTrace(failure.getStackTrace());
        for (Throwable suppressed : failure.getSuppressed()) {
            Throwable copied = copy(suppressed, copies);
            if (copied != null) {
                masked.addSuppressed(copied);
            }
        }
        return masked;
    }

    /** A logged exception with its secrets masked; prints as the original class. */
    private static final class Masked extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String type;

        Masked(String type, String message, Throwable cause) {
            super(message, cause, true, true);
            this.type = type;
        }

        @Override
        public String toString() {
            String message = getLocalizedMessage();
            return message != null ? type + ": " + message : type;
        }
    }
}

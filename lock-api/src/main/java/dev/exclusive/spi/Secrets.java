package dev.exclusive.spi;

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
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of what a store or an adapter writes: exception messages, log lines, health output,
 * {@code toString}. Deployment errors, logs and FFDC files are read by many more people than those who may know a
 * password, and a driver may quote a URL with its password in its own exception.
 *
 * <p>{@link #mask(String)} replaces, in this order:
 *
 * <ol>
 *   <li>every <em>known secret</em>, wherever it appears, longest first: a known URL by the same URL without its
 *       user info, any other secret by {@value #MASK};
 *   <li>the user info of any URL: {@code scheme://user:pass@host} becomes {@code scheme://***@host}. Everything
 *       from {@code ://} to the last {@code @} of the word counts, so a malformed URL whose password holds
 *       {@code # / ? @} is masked as well. A usage hint that writes {@code scheme://[user:password@]host} stays;
 *   <li>password parameters: {@code password=value}, and any key ending in {@code password}, {@code passwd} or
 *       {@code pwd} (any case), becomes {@code password=***}.
 * </ol>
 *
 * <p>Known secrets come from a store's settings ({@link #of(Map)}: the values of {@link #isSecretKey secret keys}),
 * a URL ({@link #withUrl}: its user info, and the password alone) and single values ({@link #withValue}), each raw
 * and percent-decoded. Values shorter than {@value #SHORTEST} characters are not searched for: replacing them would
 * garble the message, and they protect nothing. {@link #rulesOnly()} knows no secret and applies the last two rules
 * only, for texts whose settings are unknown.
 *
 * <p>{@link #mask(Throwable)} does the same to every message of an exception chain, keeping class names and stack
 * traces, for an exception about to be logged, wrapped or relayed.
 *
 * <p>Immutable and thread-safe; {@link #toString()} names no secret.
 */
public final class Secrets {

    /** What replaces a secret. */
    public static final String MASK = "***";

    /** The shortest known secret that is searched for. */
    public static final int SHORTEST = 3;

    private static final Secrets RULES_ONLY = new Secrets(Map.of());

    /** {@code scheme://user:pass@}, not {@code scheme://[user:password@]} as a usage hint writes it. */
    private static final Pattern USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)(?!\\[)[^\\s'\"<>]*@");

    private static final Pattern PASSWORD_PARAMETER = Pattern.compile(
            "(?i)\\b([a-z0-9_.-]*(?:password|passwd|pwd))(\\s*=\\s*)(?!\\*\\*\\*)[^\\s&;,'\"<>(){}\\[\\]]+");

    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(:\\d{1,5})?");

    /** Secret text → what replaces it, longest first. */
    private final Map<String, String> known;

    private Secrets(Map<String, String> known) {
        this.known = known;
    }

    /** @return masks by the rules alone (URL user info, password parameters), for texts whose secrets are unknown */
    public static Secrets rulesOnly() {
        return RULES_ONLY;
    }

    /**
     * @param settings a store's settings, keys relative to the store as a {@link LockStoreProvider} receives them;
     *                 {@code null} values are skipped
     * @return masks the values of the {@link #isSecretKey secret keys} among them, and the rules
     */
    public static Secrets of(Map<String, String> settings) {
        return RULES_ONLY.with(known -> settings.forEach((key, value) -> {
            if (value == null || !isSecretKey(key)) {
                return;
            }
            if (key.equalsIgnoreCase("url")) {
                addUrl(known, value);
            } else {
                add(known, value);
            }
        }));
    }

    /**
     * @param key a store setting's key, relative to the store
     * @return whether its value can hold a secret: {@code url}, {@code password} or any key ending in
     *         {@code password}, in any case. A provider names a setting that holds a secret this way, so that every
     *         adapter masks it.
     */
    public static boolean isSecretKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.equals("url") || lower.endsWith("password");
    }

    /**
     * @param key   a store setting's key, relative to the store
     * @param value its value, or {@code null}
     * @return the value as it may be shown: a {@code url} without its user info, any other
     *         {@link #isSecretKey secret key}'s value as {@value #MASK}, anything else as it is
     */
    public static String shown(String key, String value) {
        if (!isSecretKey(key) || value == null) {
            return value;
        }
        return key.equalsIgnoreCase("url") ? withoutUserInfo(value) : MASK;
    }

    /**
     * For a message about a URL that may be malformed, such as one that failed to parse.
     *
     * @param url a URL as configured, possibly malformed
     * @return {@code 'scheme://***@host:port' (user info masked)} (path and query left out), or
     *         {@code 'scheme://host:port'} without user info, or a note that the URL is not shown when not even
     *         scheme, host and port can be told apart from a password
     */
    public static String describeUrl(String url) {
        int separator = url.indexOf("://");
        if (separator > 0 && SCHEME.matcher(url.substring(0, separator)).matches()) {
            String rest = url.substring(separator + 3);
            int at = rest.lastIndexOf('@'); // an unencoded @ in a password: the host follows the last one
            String authority = at < 0 ? rest : rest.substring(at + 1);
            int end = 0;
            while (end < authority.length() && "/?#".indexOf(authority.charAt(end)) < 0) {
                end++;
            }
            String hostPort = authority.substring(0, end);
            if (HOST_PORT.matcher(hostPort).matches()) {
                String scheme = url.substring(0, separator);
                return at < 0
                        ? "'" + scheme + "://" + hostPort + "'"
                        : "'" + scheme + "://" + MASK + "@" + hostPort + "' (user info masked)";
            }
        }
        return "a url not shown here (it may hold a password)";
    }

    /**
     * @param url a URL a store connects to, possibly malformed; {@code null} adds nothing
     * @return these secrets and the URL's: its user info whole and its password alone (the user info after the
     *         first {@code :}, or all of it without one), raw and percent-decoded; the URL itself is shown
     *         without its user info
     */
    public Secrets withUrl(String url) {
        return url == null ? this : with(known -> addUrl(known, url));
    }

    /**
     * @param secret a password or another secret value, raw; {@code null} or shorter than {@value #SHORTEST}
     *               characters adds nothing
     * @return these secrets and {@code secret}, raw and percent-decoded
     */
    public Secrets withValue(String secret) {
        return secret == null ? this : with(known -> add(known, secret));
    }

    /**
     * @param text a message, possibly {@code null}
     * @return the message without known secrets, URL user info or password parameters; {@code null} stays
     *         {@code null}
     */
    public String mask(String text) {
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
     * @param failure an exception about to be logged, wrapped or relayed; possibly {@code null}
     * @return {@code failure} itself if no message in its chain (causes and suppressed) changes when masked; else a
     *         copy of the chain, each with its message masked, the original's stack trace, and a {@code toString}
     *         that names the original's class. The copies are {@link RuntimeException}s: code that tests the class
     *         of a cause must look at the original.
     */
    public Throwable mask(Throwable failure) {
        if (failure == null || !changes(failure, Collections.newSetFromMap(new IdentityHashMap<>()))) {
            return failure;
        }
        return copy(failure, new IdentityHashMap<>());
    }

    /** Names how many secrets are known, none of them. */
    @Override
    public String toString() {
        return "Secrets[" + known.size() + " masked]";
    }

    /** @param adding adds secrets to a copy of these: {@link #addUrl} and {@link #add} */
    private Secrets with(Consumer<Map<String, String>> adding) {
        Map<String, String> all = new LinkedHashMap<>(known);
        adding.accept(all);
        if (all.equals(known)) {
            return this;
        }
        List<String> longestFirst = new ArrayList<>(all.keySet());
        longestFirst.sort(Comparator.comparingInt(String::length).reversed());
        Map<String, String> ordered = new LinkedHashMap<>();
        longestFirst.forEach(secret -> ordered.put(secret, all.get(secret)));
        return new Secrets(Collections.unmodifiableMap(ordered));
    }

    private static void addUrl(Map<String, String> known, String url) {
        String shown = withoutUserInfo(url);
        if (!shown.equals(url)) {
            known.put(url, shown); // replaces a MASK: a URL is shown without its user info rather than masked whole
            String userInfo = userInfo(url);
            add(known, userInfo);
            int colon = userInfo.indexOf(':');
            if (colon >= 0) {
                add(known, userInfo.substring(colon + 1));
            }
        }
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

    /** An exception with its secrets masked; prints as the original class. */
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

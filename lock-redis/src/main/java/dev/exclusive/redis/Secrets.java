package dev.exclusive.redis;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of messages, logs and {@code toString}: a URL is shown as {@code redis://***@host:port}
 * (or not at all when it cannot be read), and the passwords a store was configured with are masked wherever they
 * appear, in text and in exception chains. Deployment errors, logs and FFDC files are read by many more people
 * than those who may know the password.
 *
 * <p>Immutable and thread-safe; {@link #toString()} names no secret.
 */
final class Secrets {

    static final String MASK = "***";

    private static final Secrets NONE = new Secrets(List.of());
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(:\\d{1,5})?");
    /** The user info of a URL inside free text: everything from the scheme to the last {@code @} of the word. */
    private static final Pattern USER_INFO_IN_TEXT = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^\\s'\"]*@");

    private final List<String> secrets;

    private Secrets(List<String> secrets) {
        this.secrets = secrets;
    }

    /** @return masks only the user info of URLs, for a store that was given no credentials */
    static Secrets none() {
        return NONE;
    }

    /**
     * @param url      the store's URL, or {@code null}; its user info, raw and decoded, becomes secret
     * @param password a password set on its own, or {@code null}
     * @return what to mask in this store's messages
     */
    static Secrets of(URI url, String password) {
        Set<String> found = new LinkedHashSet<>();
        if (url != null) {
            addUserInfo(found, url.getRawUserInfo());
            addUserInfo(found, url.getUserInfo());
        }
        if (password != null && !password.isEmpty()) {
            found.add(password);
        }
        List<String> longestFirst = new ArrayList<>(found);
        longestFirst.sort(Comparator.comparingInt(String::length).reversed());
        return longestFirst.isEmpty() ? NONE : new Secrets(List.copyOf(longestFirst));
    }

    /**
     * @param url a URL as configured, possibly malformed
     * @return for a message: {@code 'scheme://***@host:port' (user info masked)} (path and query left out), or
     *         {@code 'scheme://host:port'} without user info, or a note that the URL is not shown when not even
     *         scheme, host and port can be told apart from a password
     */
    static String describeUrl(String url) {
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

    /** @return {@code text} with every secret and every URL's user info masked; {@code null} stays {@code null} */
    String redact(String text) {
        if (text == null) {
            return null;
        }
        String redacted = text;
        for (String secret : secrets) {
            redacted = redacted.replace(secret, MASK);
        }
        return USER_INFO_IN_TEXT.matcher(redacted).replaceAll("$1" + MASK + "@");
    }

    /**
     * @param failure an exception about to be wrapped, logged or shown
     * @return {@code failure} itself if no message in its chain holds a secret; else a copy of the chain whose
     *         messages are masked, keeping each original class name and stack trace
     */
    Throwable redact(Throwable failure) {
        return leaks(failure, Collections.newSetFromMap(new IdentityHashMap<>())) ? copy(failure, 0) : failure;
    }

    @Override
    public String toString() {
        return "Secrets[" + secrets.size() + " masked]";
    }

    private boolean leaks(Throwable failure, Set<Throwable> seen) {
        if (failure == null || !seen.add(failure)) {
            return false;
        }
        String message = failure.getMessage();
        if (message != null && !message.equals(redact(message))) {
            return true;
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            if (leaks(suppressed, seen)) {
                return true;
            }
        }
        return leaks(failure.getCause(), seen);
    }

    private Throwable copy(Throwable failure, int depth) {
        Throwable cause = failure.getCause();
        Redacted copy = new Redacted(
                failure.getClass().getName(),
                redact(failure.getMessage()),
                cause == null || cause == failure || depth > 20 ? null : copy(cause, depth + 1));
        copy.setStackTrace(failure.getStackTrace());
        return copy;
    }

    private static void addUserInfo(Set<String> found, String userInfo) {
        if (userInfo == null || userInfo.isEmpty()) {
            return;
        }
        int colon = userInfo.indexOf(':');
        String secret = colon < 0 ? userInfo : userInfo.substring(colon + 1); // no colon: the password alone
        if (!secret.isEmpty()) {
            found.add(secret);
        }
    }

    /** Stands in for an exception whose message held a secret: the same class name and trace, a masked message. */
    static final class Redacted extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String originalClass;

        Redacted(String originalClass, String message, Throwable cause) {
            super(message, cause);
            this.originalClass = originalClass;
        }

        /** @return the class of the exception this one replaces */
        String originalClass() {
            return originalClass;
        }

        @Override
        public String toString() {
            String message = getLocalizedMessage();
            return originalClass + " (message redacted)" + (message == null ? "" : ": " + message);
        }
    }
}

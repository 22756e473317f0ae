package dev.exclusive.cdi.internal;

import dev.exclusive.LockException;
import dev.exclusive.spi.Secrets;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An RFC 9457 problem details answer ({@code application/problem+json}) for the lock exceptions that reach Jakarta
 * REST. The body is written here, escaped by hand, so that no JSON-B or JSON-P provider is needed. It carries only
 * what an anonymous client may see: never a class or method name, a store's host, port or URL, or an exception's
 * message; the full exception goes to the server log instead.
 *
 * <p>Each {@code type} is a stable URI under {@value #TYPES}; USAGE.md of lock-cdi documents them.
 */
final class ProblemDetails {

    static final String TYPES = "https://exclusive.dev/problems/";
    static final MediaType PROBLEM_JSON = new MediaType("application", "problem+json");

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    private final Response.Status status;
    private final String type;
    private final String title;
    private final String detail;
    private final Map<String, Object> members = new LinkedHashMap<>();
    private Long retryAfterSeconds;

    private ProblemDetails(Response.Status status, String slug, String title, String detail) {
        this.status = status;
        this.type = TYPES + slug;
        this.title = title;
        this.detail = detail;
    }

    /**
     * @param status the HTTP status
     * @param slug   the last segment of the problem's type URI, such as {@code lock-busy}
     * @param title  the short summary, the same for every occurrence of the type
     * @param detail this occurrence, in words a client may see
     */
    static ProblemDetails of(Response.Status status, String slug, String title, String detail) {
        return new ProblemDetails(status, slug, title, detail);
    }

    /**
     * The answer to a request whose values make an invalid lock: {@code 400 Bad Request} with nothing of the
     * exception, which is logged at {@code INFO} with its secrets masked (it names the method and the value).
     *
     * @param exception what the request caused
     * @param slug      the last segment of the problem's type URI
     * @param title     the short summary; the log line starts with it
     * @param detail    what the client may read
     */
    static Response badRequest(LockException exception, String slug, String title, String detail) {
        LOG.log(
                Level.INFO,
                title + "; answered 400 Bad Request",
                Secrets.rulesOnly().mask(exception));
        return of(Response.Status.BAD_REQUEST, slug, title, detail).toResponse();
    }

    /** Adds an extension member (a string or a number). */
    ProblemDetails with(String name, Object value) {
        members.put(name, value);
        return this;
    }

    /** Adds {@code Retry-After} in whole seconds, rounded up, at least 1. */
    ProblemDetails retryAfter(Duration wait) {
        retryAfterSeconds = seconds(wait);
        return this;
    }

    /** @return whole seconds, rounded up, at least 1 */
    static long seconds(Duration wait) {
        long seconds = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    Response toResponse() {
        Response.ResponseBuilder response =
                Response.status(status).type(PROBLEM_JSON).entity(json());
        if (retryAfterSeconds != null) {
            response.header(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
        }
        return response.build();
    }

    /** @return the body: {@code type}, {@code title}, {@code status}, {@code detail}, then the extension members */
    String json() {
        StringBuilder json = new StringBuilder(160).append('{');
        member(json, "type", type).append(',');
        member(json, "title", title).append(',');
        member(json, "status", status.getStatusCode()).append(',');
        member(json, "detail", detail);
        members.forEach((name, value) -> member(json.append(','), name, value));
        return json.append('}').toString();
    }

    private static StringBuilder member(StringBuilder json, String name, Object value) {
        string(json, name).append(':');
        return value instanceof Number number ? json.append(number) : string(json, String.valueOf(value));
    }

    /**
     * A JSON string. Escaped beyond what JSON requires: {@code < > &} (the body may be shown in a page), and
     * U+2028, U+2029 and lone surrogates (which JavaScript or a UTF-8 encoder would mangle).
     */
    static StringBuilder string(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                case '\b' -> json.append("\\b");
                case '\f' -> json.append("\\f");
                default -> {
                    boolean paired = Character.isHighSurrogate(c)
                                    && i + 1 < text.length()
                                    && Character.isLowSurrogate(text.charAt(i + 1))
                            || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
                    if (c < 0x20
                            || c == '<'
                            || c == '>'
                            || c == '&'
                            || c == '\u2028'
                            || c == '\u2029'
                            || Character.isSurrogate(c) && !paired) {
                        json.append(String.format("\\u%04X", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }
}

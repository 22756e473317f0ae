package dev.exclusive.cdi.internal;

import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Secrets;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * Answers a {@link LockStoreUnavailableException} that reaches Jakarta REST with {@code 503 Service Unavailable},
 * {@code Retry-After: 5} and problem details of type {@code https://exclusive.dev/problems/lock-store-unavailable}.
 * The body names no store, host, port or URL; the exception, which does, is logged at {@code WARNING} with its
 * secrets masked.
 */
@Provider
public class LockStoreUnavailableExceptionMapper implements ExceptionMapper<LockStoreUnavailableException> {

    /** How long a client should wait: a few store timeouts (2 s by default), enough for a failover. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    @Override
    public Response toResponse(LockStoreUnavailableException exception) {
        LOG.log(
                Level.WARNING,
                "Lock store unavailable; answered 503 Service Unavailable, Retry-After: 5",
                Secrets.rulesOnly().mask(exception));
        return ProblemDetails.of(
                        Response.Status.SERVICE_UNAVAILABLE,
                        "lock-store-unavailable",
                        "Lock store unavailable",
                        "The lock store cannot be reached; try again in " + RETRY_AFTER.toSeconds() + " s.")
                .retryAfter(RETRY_AFTER)
                .toResponse();
    }
}

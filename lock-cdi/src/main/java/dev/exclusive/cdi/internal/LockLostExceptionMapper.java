package dev.exclusive.cdi.internal;

import dev.exclusive.LockLostException;
import dev.exclusive.spi.Secrets;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.lang.System.Logger.Level;

/**
 * Answers a {@link LockLostException} that reaches Jakarta REST ({@code @Exclusive(onLost = ROLLBACK)} found the
 * hold gone, and the request's transaction, if any, rolled back) with {@code 503 Service Unavailable} and problem
 * details of type {@code https://exclusive.dev/problems/lock-lost} naming the lock and nothing else.
 *
 * <p>503, not the 409 of a busy lock: nothing in the request conflicted with anyone. The server lost its lease while
 * it worked (an outage of the store, a pause longer than the ttl, an operator's force-release), a passing failure
 * of the server's own. Inside a transaction the work was rolled back, so the same request may simply be sent again;
 * outside one, effects of the method that no transaction covers may stand, as after any 5xx. A 409 would tell the
 * client the lock is doing its job; a 500 that the server is broken. No {@code Retry-After}: nothing tells when
 * the lock will be free. The exception, which names the method, is logged at {@code WARNING}: a lost lease is worth
 * an operator's look.
 */
@Provider
public class LockLostExceptionMapper implements ExceptionMapper<LockLostException> {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    @Override
    public Response toResponse(LockLostException exception) {
        LOG.log(
                Level.WARNING,
                "Lock lost; answered 503 Service Unavailable",
                Secrets.rulesOnly().mask(exception));
        String lock = exception.lockName().orElse(null);
        ProblemDetails problem = ProblemDetails.of(
                Response.Status.SERVICE_UNAVAILABLE,
                "lock-lost",
                "Lock lost",
                (lock == null ? "The lock" : "The lock '" + lock + "'")
                        + " was lost before this request's work was done, so its result was not kept; try again.");
        if (lock != null) {
            problem.with("lock", lock);
        }
        return problem.toResponse();
    }
}

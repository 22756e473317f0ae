package dev.exclusive.cdi.internal;

import dev.exclusive.LockBusyException;
import dev.exclusive.spi.Secrets;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.lang.System.Logger.Level;

/**
 * Answers a {@link LockBusyException} that reaches Jakarta REST with {@code 409 Conflict} and problem details
 * ({@code application/problem+json}, type {@code https://exclusive.dev/problems/lock-busy}) naming the lock and
 * nothing else, plus {@code Retry-After} in whole seconds (the holder's remaining lease rounded up, at least 1)
 * when it is known. The exception, whose message names the class and method, is logged at {@code DEBUG}: a busy
 * lock is the lock doing its job. Found by the runtime's {@code @Provider} scanning, or registered by name in an
 * {@code Application}.
 */
@Provider
public class LockBusyExceptionMapper implements ExceptionMapper<LockBusyException> {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    @Override
    public Response toResponse(LockBusyException exception) {
        LOG.log(
                Level.DEBUG,
                "Lock busy; answered 409 Conflict",
                Secrets.rulesOnly().mask(exception));
        String lock = exception.lockName().orElse(null);
        String detail = (lock == null ? "The lock" : "The lock '" + lock + "'") + " is held by another caller"
                + exception
                        .retryAfter()
                        .map(wait -> "; try again in " + ProblemDetails.seconds(wait) + " s.")
                        .orElse("; try again later.");
        ProblemDetails problem = ProblemDetails.of(Response.Status.CONFLICT, "lock-busy", "Lock busy", detail);
        if (lock != null) {
            problem.with("lock", lock);
        }
        exception.retryAfter().ifPresent(problem::retryAfter);
        return problem.toResponse();
    }
}

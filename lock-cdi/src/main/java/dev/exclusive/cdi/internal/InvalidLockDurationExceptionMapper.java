package dev.exclusive.cdi.internal;

import dev.exclusive.InvalidLockDurationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Answers an {@link InvalidLockDurationException} that reaches Jakarta REST (a lease or wait computed from the
 * request that is not positive or too large) with {@code 400 Bad Request} and problem details of type
 * {@code https://exclusive.dev/problems/invalid-lock-duration}. The exception is logged at {@code INFO}.
 */
@Provider
public class InvalidLockDurationExceptionMapper implements ExceptionMapper<InvalidLockDurationException> {

    @Override
    public Response toResponse(InvalidLockDurationException exception) {
        return ProblemDetails.badRequest(
                exception,
                "invalid-lock-duration",
                "Invalid lock duration",
                "The request asks for a lock duration or wait that is not valid: it must be positive (a"
                        + " wait may be zero) and not too large.");
    }
}

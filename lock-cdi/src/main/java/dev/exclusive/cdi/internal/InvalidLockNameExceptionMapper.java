package dev.exclusive.cdi.internal;

import dev.exclusive.InvalidLockNameException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Answers an {@link InvalidLockNameException} that reaches Jakarta REST (a request whose values render a lock name
 * that breaks the rules, or a {@code null} for a placeholder of {@code @Exclusive}) with {@code 400 Bad Request} and
 * problem details of type {@code https://exclusive.dev/problems/invalid-lock-name}. The name itself is not echoed
 * (it may be the invalid part); the exception, which names it and the method, is logged at {@code INFO}.
 */
@Provider
public class InvalidLockNameExceptionMapper implements ExceptionMapper<InvalidLockNameException> {

    @Override
    public Response toResponse(InvalidLockNameException exception) {
        return ProblemDetails.badRequest(
                exception,
                "invalid-lock-name",
                "Invalid lock name",
                "The request's values do not make a valid lock name: a value is missing, or the name is"
                        + " empty, too long or has control characters.");
    }
}

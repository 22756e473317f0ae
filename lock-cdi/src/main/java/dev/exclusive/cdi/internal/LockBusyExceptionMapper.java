package dev.exclusive.cdi.internal;

import dev.exclusive.LockBusyException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Answers a {@link LockBusyException} that reaches Jakarta REST with {@code 409 Conflict}, the message as plain
 * text, and {@code Retry-After} in whole seconds (rounded up, at least 1) when the holder's remaining lease is
 * known. Found by the runtime's {@code @Provider} scanning, or registered by name in an {@code Application}.
 */
@Provider
public class LockBusyExceptionMapper implements ExceptionMapper<LockBusyException> {

    @Override
    public Response toResponse(LockBusyException exception) {
        Response.ResponseBuilder response = Response.status(Response.Status.CONFLICT)
                .type(MediaType.TEXT_PLAIN_TYPE)
                .entity(exception.getMessage());
        retryAfterSeconds(exception).ifPresent(seconds -> response.header(HttpHeaders.RETRY_AFTER, seconds));
        return response.build();
    }

    /** @return the {@code Retry-After} seconds for the exception, if it knows when the lock frees */
    static OptionalLong retryAfterSeconds(LockBusyException exception) {
        return exception
                .retryAfter()
                .map(LockBusyExceptionMapper::ceilSeconds)
                .map(OptionalLong::of)
                .orElse(OptionalLong.empty());
    }

    private static long ceilSeconds(Duration duration) {
        long seconds = duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }
}

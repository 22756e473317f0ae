package dev.exclusive.demo.rest;

import dev.exclusive.UnknownStoreException;
import dev.exclusive.demo.shop.SoldOutException;
import dev.exclusive.demo.shop.UnknownProductException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * The demo's errors as JSON: sold out is 409 {@code sold-out}, an unknown product or store 404, bad input 400
 * (a parameter that is not a number too: {@link NumberParameters}). A busy lock is lock-cdi's own mapper: 409 with
 * Retry-After.
 */
public final class ShopExceptionMappers {

    private ShopExceptionMappers() {}

    /** The body of every error answer. */
    public record Problem(String error, String message) {}

    static Response problem(Response.Status status, String error, String message) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON)
                .entity(new Problem(error, message))
                .build();
    }

    @Provider
    public static class SoldOut implements ExceptionMapper<SoldOutException> {
        @Override
        public Response toResponse(SoldOutException e) {
            return problem(Response.Status.CONFLICT, "sold-out", e.getMessage());
        }
    }

    @Provider
    public static class UnknownProduct implements ExceptionMapper<UnknownProductException> {
        @Override
        public Response toResponse(UnknownProductException e) {
            return problem(Response.Status.NOT_FOUND, "unknown-product", e.getMessage());
        }
    }

    @Provider
    public static class UnknownStore implements ExceptionMapper<UnknownStoreException> {
        @Override
        public Response toResponse(UnknownStoreException e) {
            return problem(Response.Status.NOT_FOUND, "unknown-store", e.getMessage());
        }
    }

    @Provider
    public static class BadArgument implements ExceptionMapper<IllegalArgumentException> {
        @Override
        public Response toResponse(IllegalArgumentException e) {
            return problem(Response.Status.BAD_REQUEST, "bad-request", e.getMessage());
        }
    }
}

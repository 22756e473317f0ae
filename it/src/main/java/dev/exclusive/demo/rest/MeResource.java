package dev.exclusive.demo.rest;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

/** {@code GET /api/me}: who the caller is and whether they may operate locks (role {@code exclusive-admin}). */
@Path("me")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    /** The caller as the server sees them. */
    public record Me(String user, boolean exclusiveAdmin) {}

    @GET
    public Me me(@Context SecurityContext security) {
        return new Me(security.getUserPrincipal().getName(), security.isUserInRole(Roles.EXCLUSIVE_ADMIN));
    }
}

package dev.exclusive.demo.rest;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/** {@code GET /api/me}: who the caller is and whether they may operate locks (role {@code exclusive-admin}). */
@Path("me")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    /** The caller as the server sees them. */
    public record Me(String user, boolean exclusiveAdmin) {}

    /** @throws NotAuthorizedException (401) for an anonymous caller, should a path reach here unconstrained */
    @GET
    public Me me(@Context SecurityContext security) {
        Principal caller = security.getUserPrincipal();
        if (caller == null) {
            throw new NotAuthorizedException("Sign in to see who you are", "Basic realm=\"exclusive-demo\"");
        }
        return new Me(caller.getName(), security.isUserInRole(Roles.EXCLUSIVE_ADMIN));
    }
}

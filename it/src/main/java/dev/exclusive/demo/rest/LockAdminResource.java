package dev.exclusive.demo.rest;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * For operators (role {@code exclusive-admin}, enforced in {@code web.xml}): every store's live locks, and
 * force-release of a stuck one. Names here are full names, as {@link LockInfo#name()} lists them: the store's
 * prefix included ({@code demo:imports:users}), so that a listed name can be passed back as it is.
 */
@Path("admin/locks")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LockAdminResource {

    private static final Logger LOG = Logger.getLogger(LockAdminResource.class.getName());

    @Inject
    LockRegistry locks;

    /** @return the live locks of every configured store whose full name starts with {@code prefix} */
    @GET
    public List<LockInfo> liveLocks(
            @QueryParam("prefix") @DefaultValue("") String prefix,
            @QueryParam("limit") @DefaultValue("100") int limit) {
        List<LockInfo> live = new ArrayList<>();
        for (String store : locks.storeNames()) {
            LockRegistry view = locks.store(store);
            String storePrefix = storePrefix(view);
            if (prefix.startsWith(storePrefix)) {
                live.addAll(view.liveLocks(prefix.substring(storePrefix.length()), limit));
            } else if (storePrefix.startsWith(prefix)) {
                live.addAll(view.liveLocks("", limit));
            }
        }
        return live;
    }

    /**
     * Frees a lock whoever holds it: 204 if it was held, 404 if it was free (or no lock of the store has that name).
     * The store's audit trail names the signed-in operator, and the console's History shows it on every server.
     */
    @DELETE
    @Path("{store}/{name}")
    public Response forceRelease(
            @PathParam("store") String store, @PathParam("name") String name, @Context SecurityContext security) {
        LockRegistry view = locks.store(store);
        String storePrefix = storePrefix(view);
        boolean freed = name.startsWith(storePrefix)
                && name.length() > storePrefix.length()
                && view.forceRelease(
                        name.substring(storePrefix.length()),
                        security.getUserPrincipal().getName());
        LOG.info(() -> security.getUserPrincipal().getName() + " force-released '" + name + "' in store '" + store
                + "': " + (freed ? "it was held" : "it was free"));
        return Response.status(freed ? Response.Status.NO_CONTENT : Response.Status.NOT_FOUND)
                .build();
    }

    /**
     * The registry takes names without the store's prefix and lists them with it; a handle's full name shows the
     * prefix (a handle acquires nothing).
     */
    private static String storePrefix(LockRegistry store) {
        String full = store.lock("-", Duration.ofSeconds(1)).name();
        return full.substring(0, full.length() - 1);
    }
}

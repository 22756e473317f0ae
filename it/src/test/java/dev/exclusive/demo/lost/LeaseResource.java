package dev.exclusive.demo.lost;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletableFuture;

/**
 * Added to the test's WAR, under the demo's {@code /api}: {@code POST it/lease/{user}} places an order under
 * {@code onLost = ROLLBACK} that works until its lock {@code it:lease:rollback:{user}} is found lost;
 * {@code GET it/lease/{user}/orders} counts the user's committed orders.
 */
@Path("it/lease/{user}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LeaseResource {

    @Inject
    LeasedOrders orders;

    @POST
    public Response placeUntilLost(@PathParam("user") long userId) {
        orders.placeUntilLost(userId, new CompletableFuture<>());
        return Response.status(Response.Status.CREATED).build();
    }

    @GET
    @Path("orders")
    public long orders(@PathParam("user") long userId) {
        return orders.orders(userId);
    }
}

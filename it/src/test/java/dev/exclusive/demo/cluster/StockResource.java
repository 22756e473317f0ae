package dev.exclusive.demo.cluster;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/** Test-only endpoint: one purchase from the {@link SharedStock}; 201 when a unit was sold, 409 when none is left. */
@Path("it/stock")
@RequestScoped
public class StockResource {

    @Inject
    SharedStock stock;

    @Resource(lookup = "java:module/ModuleName")
    String server;

    @POST
    public Response buy(
            @QueryParam("item") String item,
            @QueryParam("stock") String stockFile,
            @QueryParam("orders") String ordersFile,
            @QueryParam("buyer") int buyer) {
        boolean sold = stock.buy(
                item, java.nio.file.Path.of(stockFile), java.nio.file.Path.of(ordersFile), server + " " + buyer);
        return Response.status(sold ? 201 : 409).entity(server).build();
    }
}

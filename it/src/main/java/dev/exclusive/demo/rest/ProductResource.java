package dev.exclusive.demo.rest;

import dev.exclusive.demo.shop.Catalog;
import dev.exclusive.demo.shop.Order;
import dev.exclusive.demo.shop.Product;
import dev.exclusive.demo.shop.Purchases;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The shop: {@code GET /api/products}, {@code POST /api/products/{id}/purchase?user=&quantity=} and friends.
 * A purchase answers 201 with the order, 409 {@code sold-out} when the stock is short, and 409 with
 * {@code Retry-After} when the product's lock stayed busy for the whole wait.
 */
@Path("products")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ProductResource {

    @Inject
    Catalog catalog;

    @Inject
    Purchases purchases;

    @GET
    public List<Product> products() {
        return catalog.products();
    }

    @GET
    @Path("{id}")
    public Product product(@PathParam("id") long productId) {
        return catalog.product(productId);
    }

    @GET
    @Path("{id}/orders")
    public Catalog.OrderSummary orders(@PathParam("id") long productId) {
        return catalog.orders(productId);
    }

    @POST
    @Path("{id}/purchase")
    public Response purchase(
            @PathParam("id") long productId,
            @QueryParam("user") @DefaultValue("1") long userId,
            @QueryParam("quantity") @DefaultValue("1") int quantity) {
        catalog.product(productId); // an unknown id gets its 404 before it takes a lock or claims a fence
        return created(purchases.purchase(productId, userId, quantity));
    }

    @POST
    @Path("{id}/purchase-without-lock")
    public Response purchaseWithoutLock(
            @PathParam("id") long productId,
            @QueryParam("user") @DefaultValue("1") long userId,
            @QueryParam("quantity") @DefaultValue("1") int quantity) {
        catalog.product(productId);
        return created(purchases.purchaseWithoutLock(productId, userId, quantity));
    }

    /** Sets the stock and deletes the product's orders, to run the demo again. */
    @POST
    @Path("{id}/reset")
    public Product reset(@PathParam("id") long productId, @QueryParam("stock") @DefaultValue("20") int stock) {
        return catalog.reset(productId, stock);
    }

    private static Response created(Order order) {
        return Response.status(Response.Status.CREATED).entity(order).build();
    }
}

package dev.exclusive.demo.shop;

/** A purchase asked for more than the product's stock; nothing was taken. */
public class SoldOutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long productId;
    private final int quantity;

    public SoldOutException(long productId, int quantity) {
        super("Product " + productId + " has fewer than " + quantity + " in stock");
        this.productId = productId;
        this.quantity = quantity;
    }

    public long productId() {
        return productId;
    }

    public int quantity() {
        return quantity;
    }
}

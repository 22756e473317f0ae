package dev.exclusive.demo.shop;

/** No product has this id. */
public class UnknownProductException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long productId;

    public UnknownProductException(long productId) {
        super("No product " + productId);
        this.productId = productId;
    }

    public long productId() {
        return productId;
    }
}

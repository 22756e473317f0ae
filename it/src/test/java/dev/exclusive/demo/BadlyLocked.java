package dev.exclusive.demo;

import dev.exclusive.cdi.Exclusive;
import jakarta.enterprise.context.ApplicationScoped;

/** Two mistakes the extension must report together at deployment: an unknown store and a template parameter. */
@ApplicationScoped
public class BadlyLocked {

    @Exclusive(store = "nowhere")
    public void unknownStore() {}

    @Exclusive("orders:{missing}")
    public void unknownParameter(long orderId) {}
}

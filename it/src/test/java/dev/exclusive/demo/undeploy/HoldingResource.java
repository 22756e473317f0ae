package dev.exclusive.demo.undeploy;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.time.Duration;

/** Starts Exclusive's background work: an auto-extended hold that is never released, and a waiter on Redis. */
@ApplicationScoped
@Path("hold")
public class HoldingResource {

    @ApplicationPath("api")
    public static class Api extends Application {}

    @Inject
    LockRegistry locks;

    /** @return whether the lock was taken and a second caller then waited for it in vain */
    @POST
    public String hold() {
        Lock held = locks.lock("undeploy:held", Duration.ofSeconds(1)).autoExtend();
        boolean acquired = held.get();
        boolean waited = !locks.lock("undeploy:held", Duration.ofSeconds(1)).block(Duration.ofMillis(300));
        return acquired + " " + waited;
    }
}

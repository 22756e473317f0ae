package dev.exclusive.demo.cluster;

import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

/** Test-only endpoint: the server's side of the shared counter, through the injected registry. */
@Path("it/counter")
@RequestScoped
public class CounterResource {

    @Inject
    LockRegistry registry;

    @POST
    public long increment(@QueryParam("file") String file, @QueryParam("times") int times) {
        java.nio.file.Path counter = java.nio.file.Path.of(file);
        SharedCounter.increment(registry, counter, times);
        return SharedCounter.read(counter);
    }
}

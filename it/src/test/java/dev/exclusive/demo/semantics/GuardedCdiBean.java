package dev.exclusive.demo.semantics;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.OnBusy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/** {@link Guarded} on a CDI bean. */
@ApplicationScoped
public class GuardedCdiBean implements Guarded {

    @Override
    @Exclusive(value = "it:semantics:cdi:{key}", ttl = 30)
    public String hold(String key, CountDownLatch entered, CountDownLatch leave, List<String> log) {
        entered.countDown();
        Guarded.await(leave);
        log.add("hold");
        return "hold";
    }

    @Override
    @Exclusive(value = "it:semantics:cdi:{key}", ttl = 30, maxWait = 10)
    public String waitFor(String key, List<String> log) {
        log.add("wait");
        return "wait";
    }

    @Override
    @Exclusive(value = "it:semantics:cdi:{key}", ttl = 30, onBusy = OnBusy.SKIP)
    public Optional<String> skipIfBusy(String key, List<String> log) {
        log.add("skip-ran");
        return Optional.of("skip-ran");
    }
}

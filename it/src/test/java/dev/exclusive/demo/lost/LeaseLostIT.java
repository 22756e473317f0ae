package dev.exclusive.demo.lost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.exclusive.LockLostException;
import dev.exclusive.LockRegistry;
import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import dev.exclusive.demo.shop.Order;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A container-managed {@code @Stateless} method ({@link LeasedOrders}) writes an order row to the demo's database
 * while its lease ends: {@code onLost = ROLLBACK} leaves no row and hands the caller {@code LockLostException}
 * (over Jakarta REST: 503 problem details naming the lock); the same work under {@code LOG} commits its row, so the
 * policy is what rolls it back. Each case takes one to three seconds.
 */
@ExtendWith(ArquillianExtension.class)
class LeaseLostIT {

    private static final String ARCHIVE = "lease-lost-it";
    private static final Duration PAST_THE_TTL = Duration.ofMillis(1_500);

    @Deployment
    static WebArchive deployment() {
        return Deployments.demo(ARCHIVE + ".war").addClasses(LeasedOrders.class, LeaseResource.class);
    }

    @Inject
    LeasedOrders orders;

    @Inject
    LockRegistry locks;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    private static long newUser() {
        return ThreadLocalRandom.current().nextLong(1_000_000, Long.MAX_VALUE);
    }

    @Test
    void rollbackLeavesNoRowWhenTheLockIsForceReleasedMidWork() throws Exception {
        long user = newUser();
        String lock = "it:lease:rollback:" + user;
        String listed = Deployments.SHARED_PREFIX + lock; // the operators' endpoint takes names as it lists them
        CompletableFuture<Integer> statusWhenLost = new CompletableFuture<>();
        Future<Order> call = executor.submit(() -> orders.placeUntilLost(user, statusWhenLost));
        awaitHeld(lock);

        assertThat(locks.forceRelease(lock)).isTrue();

        Throwable failure = catchThrowable(() -> call.get(30, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class).hasCauseExactlyInstanceOf(LockLostException.class);
        assertThat(((LockLostException) failure.getCause()).lockName())
                .hasValueSatisfying(name -> assertThat(name).endsWith(lock));
        assertThat(statusWhenLost.get())
                .as("the renewal that found the loss marked the transaction rollback-only while the method ran")
                .isEqualTo(Status.STATUS_MARKED_ROLLBACK);
        assertThat(orders.orders(user)).as("the row was rolled back").isZero();
    }

    @Test
    void rollbackLeavesNoRowWhenTheWorkOutlastsTheTtl() {
        long user = newUser();

        Throwable failure = catchThrowable(() -> orders.placeOutlastingTheTtl(user, PAST_THE_TTL));

        assertThat(failure).isExactlyInstanceOf(LockLostException.class);
        assertThat(((LockLostException) failure).lockName())
                .hasValueSatisfying(name -> assertThat(name).endsWith("it:lease:expiry:" + user));
        assertThat(orders.orders(user)).as("the row was rolled back").isZero();
    }

    @Test
    void logLetsTheRowCommitWhenTheLockIsForceReleasedMidWork() throws Exception {
        long user = newUser();
        String lock = "it:lease:log:" + user;
        CompletableFuture<Integer> statusWhenLost = new CompletableFuture<>();
        Future<Order> call = executor.submit(() -> orders.placeUntilLostLogged(user, statusWhenLost));
        awaitHeld(lock);

        assertThat(locks.forceRelease(lock)).isTrue();

        assertThat(call.get(30, TimeUnit.SECONDS).getUserId()).isEqualTo(user);
        assertThat(statusWhenLost.get()).isEqualTo(Status.STATUS_ACTIVE);
        assertThat(orders.orders(user)).as("the same work under LOG commits").isEqualTo(1);
    }

    @Test
    void logLetsTheRowCommitWhenTheWorkOutlastsTheTtl() throws Exception {
        long user = newUser();

        assertThat(orders.placeOutlastingTheTtlLogged(user, PAST_THE_TTL).getUserId())
                .isEqualTo(user);

        assertThat(orders.orders(user)).as("the same work under LOG commits").isEqualTo(1);
    }

    /**
     * Over Jakarta REST, with the operator's force-release through the demo's admin endpoint: the caller gets 503
     * problem details naming the lock, and the row is gone.
     */
    @Test
    @RunAsClient
    void overRestTheCallerGets503NamingTheLockAndTheRowIsGone(@ArquillianResource URL deployment) throws Exception {
        String base = deployment.toString().endsWith("/") ? deployment.toString() : deployment + "/";
        Http app = Http.at(new URL(base));
        Http admin = app.as("admin", "admin");
        long user = newUser();
        String lock = "it:lease:rollback:" + user;
        String listed = Deployments.SHARED_PREFIX + lock; // the operators' endpoint takes names as it lists them
        CompletableFuture<HttpResponse<String>> call = HttpClient.newHttpClient()
                .sendAsync(
                        HttpRequest.newBuilder(URI.create(base + "api/it/lease/" + user))
                                .timeout(Duration.ofSeconds(60))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!admin.get("api/admin/locks?prefix=" + listed).body().contains(listed)) {
            assertThat(System.nanoTime())
                    .as("the call took the lock within 30 s")
                    .isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }

        assertThat(admin.delete("api/admin/locks/shared/" + listed).statusCode())
                .isEqualTo(204);

        HttpResponse<String> answer = call.get(30, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body())
                .contains("\"type\":\"https://exclusive.dev/problems/lock-lost\"")
                .containsPattern("\"lock\":\"[^\"]*" + lock + "\"")
                .doesNotContain("LeasedOrders");
        assertThat(app.get("api/it/lease/" + user + "/orders").body()).isEqualTo("0");
    }

    /** Polls the store until the call has taken its lock. */
    private void awaitHeld(String lock) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!locks.lock(lock, Duration.ofSeconds(1)).isLocked()) {
            assertThat(System.nanoTime())
                    .as("the call took the lock within 30 s")
                    .isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}

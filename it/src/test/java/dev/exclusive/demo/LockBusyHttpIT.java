package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A busy {@code THROW} method over HTTP: 409 with Retry-After. The lock is held by this test's own JVM through
 * lock-api on the server's lock folder, with the demo's store prefix, so the server contends with another process.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class LockBusyHttpIT {

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("busy-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void purchaseWhileAnotherProcessHoldsTheProductAnswers409WithRetryAfter() {
        Http.at(base).post("api/products/3/reset?stock=10");
        try (LockRegistry outside = Deployments.sharedStoreOutside()) {
            Lock held = outside.lock("purchase:product:3", Duration.ofSeconds(30));
            assertThat(held.get()).isTrue();

            HttpResponse<String> busy = Http.at(base).post("api/products/3/purchase?user=1");

            assertThat(busy.statusCode()).isEqualTo(409);
            assertThat(busy.body()).contains("demo:purchase:product:3");
            assertThat(busy.headers().firstValueAsLong("Retry-After")).isPresent();
            assertThat(busy.headers().firstValueAsLong("Retry-After").getAsLong())
                    .isBetween(1L, 30L);

            held.release();
            assertThat(Http.at(base).post("api/products/3/purchase?user=1").statusCode())
                    .isEqualTo(201);
        }
    }
}

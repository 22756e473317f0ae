package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.util.TypeLiteral;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

/**
 * No setting that can hold a secret ({@code url}, {@code password}, any key ending in {@code password}) reaches a
 * deployment error or health output, even from a store provider that repeats its settings: URL user info becomes
 * {@code scheme://***@}, secret values {@code ***}. Keys and hosts stay, so the operator can still find the fault.
 */
class SecretsInMessagesTest {

    /** Malformed: the {@code #} in the password starts a URI fragment, so the provider rejects it and quotes it. */
    static final String URL = "redis://app:s3cr#t/pw@cache.internal:6379/0";

    static final String PASSWORD = "hunter2-pass";
    static final String ADMIN_PASSWORD = "Adm1nPa55word";
    static final List<String> SECRETS = List.of("s3cr#t", "s3cr%23t", "app:s3cr", PASSWORD, ADMIN_PASSWORD);

    private static Map<String, String> echoStore(String mode) {
        return Map.of(
                "exclusive.store.shared.type", "echo",
                "exclusive.store.shared.mode", mode,
                "exclusive.store.shared.url", URL,
                "exclusive.store.shared.password", PASSWORD,
                "exclusive.store.shared.Admin-Password", ADMIN_PASSWORD);
    }

    private static String deploymentFailure(Map<String, String> config) {
        Throwable failure = catchThrowable(() -> Deployment.start(config).close());
        assertThat(failure).as("deployment fails").isNotNull();
        return failure.getMessage();
    }

    @Test
    void aProvidersConfigurationErrorIsRelayedWithTheKeyAndWithoutTheSecrets() {
        String message = deploymentFailure(echoStore("reject"));

        assertThat(message).contains("exclusive.store.shared.url: Store 'shared' of type echo needs a url");
        assertThat(message).contains("got 'redis://***@cache.internal:6379/0'");
        assertThat(message).contains("password=***");
        SECRETS.forEach(secret -> assertThat(message).doesNotContain(secret));
    }

    @Test
    void aProviderThatFailsOtherwiseIsRelayedWithoutTheSecrets() {
        String message = deploymentFailure(echoStore("crash"));

        assertThat(message)
                .contains("exclusive.store.shared: the echo store could not be created:")
                .contains("crashed connecting to redis://***@cache.internal:6379/0");
        SECRETS.forEach(secret -> assertThat(message).doesNotContain(secret));
    }

    @Test
    void theReadinessCheckOfAnUnreachableStoreGivesAReasonWithoutTheSecrets() {
        try (Deployment deployment = Deployment.start(echoStore("down"))) {
            HealthCheckResponse response = deployment
                    .select(new TypeLiteral<Instance<HealthCheck>>() {})
                    .select(Readiness.Literal.INSTANCE)
                    .get()
                    .call();

            assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
            String data = response.getData().orElseThrow().toString();
            assertThat(data).contains("cannot reach redis://***@cache.internal:6379/0");
            SECRETS.forEach(secret -> assertThat(data).doesNotContain(secret));
        }
    }
}

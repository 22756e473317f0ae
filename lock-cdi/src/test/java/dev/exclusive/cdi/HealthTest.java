package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.util.TypeLiteral;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

class HealthTest {

    @Test
    void eachStoreHasAReadinessCheckThatIsDownWithTheReasonWhenItsStoreIsUnreachable() {
        Map<String, String> config = Map.of(
                "exclusive.store.local.type", "memory",
                "exclusive.store.remote.type", "probe",
                "exclusive.store.remote.id", "health",
                "exclusive.default-store", "local");
        try (Deployment deployment = Deployment.start(config)) {
            Instance<HealthCheck> checks = deployment
                    .select(new TypeLiteral<Instance<HealthCheck>>() {})
                    .select(Readiness.Literal.INSTANCE);

            List<HealthCheckResponse> up = call(checks);
            assertThat(up)
                    .extracting(HealthCheckResponse::getName)
                    .containsExactly("exclusive-store-local", "exclusive-store-remote");
            assertThat(up).extracting(HealthCheckResponse::getStatus).containsOnly(HealthCheckResponse.Status.UP);

            ProbeLockStoreProvider.INSTANCES.get("health").down = true;
            List<HealthCheckResponse> down = call(checks);
            assertThat(down.get(0).getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
            assertThat(down.get(1).getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
            assertThat(down.get(1).getData())
                    .hasValueSatisfying(data -> assertThat(data)
                            .containsEntry("store", "remote")
                            .containsEntry("type", "probe")
                            .containsEntry("reason", "probe store 'remote' is switched off"));
        }
    }

    private static List<HealthCheckResponse> call(Instance<HealthCheck> checks) {
        return checks.stream()
                .map(HealthCheck::call)
                .sorted(Comparator.comparing(HealthCheckResponse::getName))
                .toList();
    }
}

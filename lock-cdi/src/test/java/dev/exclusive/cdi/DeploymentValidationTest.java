package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.exclusive.OnLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class DeploymentValidationTest {

    record Order(long id) {}

    @ApplicationScoped
    static class Broken {
        @Exclusive("order:{orderId}")
        public void unknownPlaceholder(long id) {}

        @Exclusive("order:{order.number}")
        public void unknownProperty(Order order) {}

        @Exclusive("order:{3}")
        public void positionOutOfRange(long id) {}

        @Exclusive("order:{id")
        public void unclosedPlaceholder(long id) {}

        @Exclusive(value = "zero", ttl = 0)
        public void zeroTtl() {}

        @Exclusive(value = "negative", maxWait = -1)
        public void negativeWait() {}

        @Exclusive(value = "months", unit = java.time.temporal.ChronoUnit.MONTHS)
        public void estimatedUnit() {}

        @Exclusive(value = "where", store = "rediss")
        public void unknownStore() {}

        @Exclusive(value = "fine")
        public void overriddenBadly() {}

        @Exclusive("{first}{second}")
        public void touchingPlaceholders(String first, String second) {}

        @Exclusive("import:{ids}")
        public void arrayPlaceholder(long[] ids) {}

        @Exclusive("customer:{customer}")
        public void identityTextPlaceholder(Account customer) {}
    }

    /** A class without a {@code toString()} of its own: its text is its identity, different for equal values. */
    static final class Account {
        long id;
    }

    @ApplicationScoped
    static class Fine {
        @Exclusive
        public void run() {}
    }

    private static String deploymentFailure(Map<String, String> config, Class<?>... beans) {
        Throwable failure = catchThrowable(() -> Deployment.start(config, beans).close());
        assertThat(failure).as("deployment fails").isNotNull();
        // Weld lists definition errors in its own exception: ours is the one entry, with its whole message
        String all = failure.getMessage();
        String ours = DeploymentException.class.getName() + ": ";
        assertThat(all).as("Weld's failure").contains(ours + "Exclusive:");
        return all.substring(all.indexOf(ours) + ours.length());
    }

    @Test
    void everyBadMethodIsListedInOneDeploymentError() {
        String prefix = Broken.class.getName();
        String message =
                deploymentFailure(Map.of(prefix + "/overriddenBadly/Exclusive/onBusy", "IGNORE"), Broken.class);

        assertThat(message)
                .startsWith(
                        "Exclusive: 13 problems in the lock configuration (exclusive.*) and" + " @Exclusive methods:");
        assertThat(message)
                .contains("@Exclusive on " + prefix + "#unknownPlaceholder(long): name template"
                        + " \"order:{orderId}\": placeholder {orderId} matches no parameter; parameters: id; use one of these"
                        + " names or a position such as {0}");
        assertThat(message)
                .contains("#unknownProperty(Order): name template \"order:{order.number}\": placeholder"
                        + " {order.number}: order is a " + Order.class.getName() + ", which has no property 'number'");
        assertThat(message)
                .contains("#positionOutOfRange(long): name template \"order:{3}\": placeholder {3}"
                        + " refers to parameter 3 but the method has 1 parameter");
        assertThat(message)
                .contains("#unclosedPlaceholder(long): name template \"order:{id\": '{' at position 6"
                        + " is not closed");
        assertThat(message)
                .contains("#touchingPlaceholders(String, String): name template \"{first}{second}\": placeholders"
                        + " {first} and {second} touch, so two calls could render the same name; put a separator such"
                        + " as ':' between them");
        assertThat(message)
                .contains("#arrayPlaceholder(long[]): name template \"import:{ids}\": placeholder {ids} is an array"
                        + " (long[]), whose text is its identity: equal values would name different locks; name an"
                        + " element's property, or pass a List");
        assertThat(message)
                .contains("#identityTextPlaceholder(Account): name template \"customer:{customer}\": placeholder"
                        + " {customer} is a " + Account.class.getName() + ", which has no toString() of its own, so its"
                        + " text is its identity: equal values would name different locks; name a property such as"
                        + " {customer.id}, or give the class a toString()");
        assertThat(message).contains("#zeroTtl(): ttl must be between 1 ms and 100 years, got 0 SECONDS");
        assertThat(message).contains("#negativeWait(): maxWait must be between 0 and 100 years, got -1 SECONDS");
        assertThat(message).contains("#estimatedUnit(): ttl 30 MONTHS is not a duration");
        assertThat(message).contains("#estimatedUnit(): maxWait 0 MONTHS is not a duration");
        assertThat(message).contains("#unknownStore(): unknown store 'rediss'; configured stores: memory");
        assertThat(message)
                .contains(prefix + "/overriddenBadly/Exclusive/onBusy: 'IGNORE' is not a valid onBusy for"
                        + " @Exclusive on " + prefix + "#overriddenBadly(); expected THROW or SKIP");
    }

    @Test
    void storeConfigurationProblemsNameTheKeyAndAreListedTogether() {
        String message = deploymentFailure(
                Map.of(
                        "exclusive.store.shared.type", "redis",
                        "exclusive.store.local.type", "memory",
                        "exclusive.store.local.colour", "blue",
                        "exclusive.store.files.type", "file",
                        "exclusive.store.untyped.url", "x",
                        "exclusive.defaultstore", "local"),
                Fine.class);

        assertThat(message).startsWith("Exclusive: 6 problems");
        assertThat(message)
                .contains("exclusive.store.shared.type: Unknown store type 'redis' (add"
                        + " dev.exclusive:lock-redis to the application); installed types: echo, file, memory, probe");
        assertThat(message).contains("exclusive.store.local.colour: Store 'local' of type memory takes no settings");
        assertThat(message).contains("exclusive.store.files.directory: Store 'files' of type file needs a folder");
        assertThat(message)
                .contains("exclusive.store.untyped.type is missing or empty: set it to the store's type;"
                        + " installed types: echo, file, memory, probe");
        assertThat(message).contains("exclusive.defaultstore: unknown key");
        assertThat(message).contains("exclusive.default-store is missing: 4 stores are configured");
    }

    /**
     * A store whose only key is empty, as an unset environment variable leaves {@code exclusive.store.shared.type},
     * is reported; before, MicroProfile Config's empty value dropped the store, and the application started on the
     * in-JVM default store, with no exclusion between servers.
     */
    @Test
    void aStoreWhoseTypeIsEmptyFailsDeploymentInsteadOfFallingBackToMemory() {
        String message = deploymentFailure(Map.of("exclusive.store.shared.type", ""), Fine.class);

        assertThat(message)
                .contains("exclusive.store.shared.type is missing or empty: set it to the store's type;"
                        + " installed types: echo, file, memory, probe");
    }

    /** A store configured only under a profile that is not active is not a store with an empty type. */
    @Test
    void aStoreOfAnInactiveProfileIsNotReported() {
        Deployment.start(Map.of("%elsewhere.exclusive.store.other.type", "memory"), Fine.class)
                .close();
    }

    @Test
    void anExclusiveStoreMustBeConfiguredAndTheDefaultStoreMustExist() {
        String message = deploymentFailure(
                Map.of(
                        "exclusive.store.local.type", "memory",
                        "exclusive.default-store", "shared",
                        "Exclusive/store", "nowhere"),
                Fine.class);

        assertThat(message)
                .contains("exclusive.default-store is 'shared', which is not a configured store;"
                        + " configured stores: local");
        assertThat(message)
                .contains("@Exclusive on " + Fine.class.getName() + "#run(): unknown store 'nowhere'"
                        + " (from config key Exclusive/store); configured stores: local");
    }

    static class OwnStage<T> extends CompletableFuture<T> {}

    @ApplicationScoped
    static class BadPolicies {
        @Exclusive(value = "a", onLost = OnLost.INTERRUPT)
        public void interruptWithoutRenewals() {}

        @Exclusive(value = "b", onLost = OnLost.INTERRUPT, autoExtend = true)
        public CompletableFuture<Void> interruptAStage() {
            return null;
        }

        @Exclusive(value = "c", onLost = OnLost.ROLLBACK)
        public OwnStage<Void> rollbackAStageOfItsOwnType() {
            return null;
        }

        @Exclusive(value = "d")
        public void configuredAsText() {}
    }

    @Test
    void policiesThatCannotWorkFailDeploymentWithEveryOtherProblem() {
        String bean = BadPolicies.class.getName();
        Throwable failure = catchThrowable(
                () -> Deployment.start(Map.of(bean + "/configuredAsText/Exclusive/onLost", "IGNORE"), BadPolicies.class)
                        .close());

        assertThat(failure).isNotNull();
        String message = failure.getMessage();
        assertThat(message).contains(DeploymentException.class.getName() + ": Exclusive: 4 problems");
        assertThat(message)
                .contains("@Exclusive on " + bean + "#interruptWithoutRenewals(): onLost = INTERRUPT needs autoExtend"
                        + " = true: only a renewal finds the lease gone while the method runs");
        assertThat(message)
                .contains("#interruptAStage(): onLost = INTERRUPT cannot stop the work of a method returning"
                        + " java.util.concurrent.CompletableFuture: the stage completes on threads the interceptor"
                        + " does not know; use onLost = ROLLBACK");
        assertThat(message)
                .contains("#rollbackAStageOfItsOwnType(): onLost = ROLLBACK needs a return type that a"
                        + " CompletableFuture fits");
        assertThat(message)
                .contains(bean + "/configuredAsText/Exclusive/onLost: 'IGNORE' is not a valid onLost for @Exclusive on "
                        + bean + "#configuredAsText(); expected LOG, INTERRUPT or ROLLBACK");
    }
}

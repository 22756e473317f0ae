package dev.exclusive.cdi.internal;

import dev.exclusive.spi.Secrets;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.util.ArrayList;
import java.util.List;

/** Every configuration and {@code @Exclusive} problem of one deployment, reported together in one message. */
final class Problems {

    private final List<String> problems = new ArrayList<>();

    /** Masked by {@link Secrets#rulesOnly()} as well, in case a caller relays a text it did not mask. */
    void add(String problem) {
        problems.add(Secrets.rulesOnly().mask(problem));
    }

    boolean isEmpty() {
        return problems.isEmpty();
    }

    List<String> all() {
        return List.copyOf(problems);
    }

    DeploymentException toException() {
        StringBuilder message = new StringBuilder("Exclusive: ")
                .append(problems.size())
                .append(problems.size() == 1 ? " problem" : " problems")
                .append(" in the lock configuration (exclusive.*) and @Exclusive methods:");
        for (String problem : problems) {
            message.append("\n  - ").append(problem);
        }
        return new DeploymentException(message.toString());
    }
}

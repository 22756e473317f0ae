package dev.exclusive.admin;

import java.util.Objects;

/**
 * A store whose locks could not be listed: the console shows it as a banner and lists the other stores.
 *
 * @param store   the configured store's name
 * @param message what went wrong, for operators
 */
public record StoreProblem(String store, String message) {

    /**
     * Checks that both components are non-{@code null}.
     *
     * @param store   the configured store's name
     * @param message what went wrong, for operators
     */
    public StoreProblem {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(message, "message");
    }
}

package dev.exclusive;

import java.util.Optional;

/**
 * A store setting that is missing, malformed or unknown. The message names the key, the value and the fix;
 * {@link #key()} names the key (relative to the store, e.g. {@code directory}) when there is one.
 */
public class LockConfigurationException extends LockException {

    private static final long serialVersionUID = 1L;

    /** The setting concerned, or {@code null}. */
    private final String key;

    /**
     * @param message   what is wrong, naming the key, the value and the fix
     * @param storeName the store concerned, or {@code null}
     * @param key       the setting concerned, relative to the store, or {@code null}
     * @param cause     the underlying failure, or {@code null}
     */
    public LockConfigurationException(String message, String storeName, String key, Throwable cause) {
        super(message, null, storeName, cause);
        this.key = key;
    }

    /** @return the setting concerned, if one */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }
}

package dev.exclusive.cdi;

import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Store type {@code echo} for tests: a careless provider that repeats its settings, secrets included, in every
 * message. Setting {@code mode}: {@code reject} throws a {@link LockConfigurationException} at creation,
 * {@code crash} an {@link IllegalStateException}, {@code down} builds a store that is never reachable.
 */
public final class EchoLockStoreProvider implements LockStoreProvider {

    @Override
    public String type() {
        return "echo";
    }

    @Override
    public LockStore create(String storeName, Map<String, String> settings) {
        String echoed = new TreeMap<>(settings).toString();
        return switch (settings.getOrDefault("mode", "reject")) {
            case "down" -> new DownStore(storeName, "cannot reach " + settings.get("url") + " with " + echoed);
            case "crash" -> throw new IllegalStateException("crashed connecting to " + settings.get("url"));
            default ->
                throw new LockConfigurationException(
                        "Store '" + storeName + "' of type echo needs a url like redis://[user:password@]host, got '"
                                + settings.get("url") + "'; all settings: " + echoed,
                        storeName,
                        "url",
                        null);
        };
    }

    /** Unreachable, and says where it tried in every failure. */
    static final class DownStore implements LockStore {
        private final String storeName;
        private final String message;

        DownStore(String storeName, String message) {
            this.storeName = storeName;
            this.message = message;
        }

        private LockStoreUnavailableException down(String lock) {
            return new LockStoreUnavailableException(message, lock, storeName, new RuntimeException(message));
        }

        @Override
        public Acquisition tryAcquire(String lock, String owner, LockHolder holder, Duration ttl) {
            throw down(lock);
        }

        @Override
        public boolean release(String lock, String owner) {
            throw down(lock);
        }

        @Override
        public boolean forceRelease(String lock) {
            throw down(lock);
        }

        @Override
        public boolean extend(String lock, String owner, Duration ttl) {
            throw down(lock);
        }

        @Override
        public Optional<LockEntry> inspect(String lock) {
            throw down(lock);
        }

        @Override
        public List<LockEntry> list(String prefix, int limit) {
            throw down(null);
        }

        @Override
        public void awaitRelease(String lock, Duration maxWait) {}

        @Override
        public void close() {}
    }
}

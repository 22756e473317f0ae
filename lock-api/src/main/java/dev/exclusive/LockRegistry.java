package dev.exclusive;

import dev.exclusive.internal.DefaultLock;
import dev.exclusive.internal.Durations;
import dev.exclusive.internal.Owners;
import dev.exclusive.internal.RegistryContext;
import dev.exclusive.internal.StoreBinding;
import dev.exclusive.internal.Tokens;
import dev.exclusive.memory.MemoryLockStore;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.LockStoreProvider;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The entry point: hands out {@link Lock} handles on named locks in configured stores.
 *
 * <pre>{@code
 * LockRegistry registry = LockRegistry.builder()
 *         .store("local", new MemoryLockStore())
 *         .build();
 * LockResult<Report> report = registry.lock("reports:daily", Duration.ofSeconds(30)).get(() -> rebuild());
 * }</pre>
 *
 * <p>A registry is a view over one of its stores (the default store at first); {@link #store(String)} gives the
 * view over another, sharing the same stores. Thread-safe. {@link #close()} on any view closes the stores of all
 * of them.
 */
public final class LockRegistry implements AutoCloseable {

    private final RegistryContext context;
    private final StoreBinding binding;

    private LockRegistry(RegistryContext context, StoreBinding binding) {
        this.context = context;
        this.binding = binding;
    }

    /** @return a builder; with no store added, it builds a registry over one {@code memory} store */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A handle on the lock {@code name} in this view's store. Acquires nothing.
     *
     * @param name the lock's name, without the store prefix (which {@link Lock#name()} includes)
     * @param ttl  the lease each acquisition asks for; at least 1 ms
     * @return a new handle with its own owner id
     * @throws InvalidLockNameException     if {@code name} breaks the rule in {@link LockNames}
     * @throws InvalidLockDurationException if {@code ttl} is not at least 1 ms or too large
     */
    public Lock lock(String name, Duration ttl) {
        String fullName = fullName(name);
        return new DefaultLock(
                context, binding, fullName, Durations.requireTtl(ttl, fullName, binding.name()), Owners.next());
    }

    /**
     * {@link #lock(String, Duration)} with the ttl in seconds.
     *
     * @param name       the lock's name, without the store prefix
     * @param ttlSeconds the lease each acquisition asks for; positive
     * @return a new handle
     */
    public Lock lock(String name, long ttlSeconds) {
        String fullName = fullName(name);
        return new DefaultLock(
                context, binding, fullName, Durations.ttlSeconds(ttlSeconds, fullName, binding.name()), Owners.next());
    }

    private String fullName(String name) {
        LockNames.requireValid(name, binding.name());
        return binding.fullName(name);
    }

    /**
     * @param storeName a configured store's name
     * @return the view of this registry over that store
     * @throws UnknownStoreException naming the configured stores, if there is no such store
     */
    public LockRegistry store(String storeName) {
        StoreBinding other = context.binding(storeName);
        return other == binding ? this : new LockRegistry(context, other);
    }

    /** @return the name of this view's store */
    public String storeName() {
        return binding.name();
    }

    /** @return the names of every configured store */
    public Set<String> storeNames() {
        return new TreeSet<>(context.stores().keySet());
    }

    /** @return the name recorded as holder of every lock this registry takes (default {@code host/pid}) */
    public String instanceName() {
        return context.instanceName();
    }

    /**
     * A handle that shares the owner of the handle whose {@link Lock#token()} this is, in whichever configured
     * store the token names: it can release or extend that handle's hold, from another thread, process or server
     * configured with the same store. If the owner holds the lock now, the new handle holds it too
     * ({@link Lock#fence()}, {@link Lock#remaining()} as the store reports).
     *
     * @param token a string from {@link Lock#token()}
     * @return the restored handle
     * @throws InvalidLockTokenException if the token is not one {@link Lock#token()} made
     * @throws UnknownStoreException     if its store is not configured here
     */
    public Lock restore(String token) {
        Tokens.Decoded decoded = Tokens.decode(token);
        StoreBinding target = context.binding(decoded.storeName());
        Duration ttl;
        try {
            LockNames.requireValidFullName(decoded.name(), target.name());
            ttl = Durations.requireTtl(decoded.ttl(), decoded.name(), target.name());
        } catch (InvalidLockNameException | InvalidLockDurationException e) {
            // Lock.token() writes only names and ttls that were valid: this one was damaged or made elsewhere
            throw new InvalidLockTokenException("Damaged lock token: " + e.getMessage(), e);
        }
        return new DefaultLock(context, target, decoded.name(), ttl, decoded.owner()).adoptHold();
    }

    /**
     * The live locks of this view's store whose name starts with {@code namePrefix}, for operators.
     *
     * @param namePrefix a name prefix, without the store prefix; empty for all
     * @param limit      the most locks to return; positive
     * @return at most {@code limit} live locks, sorted by name
     * @throws IllegalArgumentException       if {@code limit} is not positive
     * @throws LockStoreUnavailableException  if the store cannot be reached
     */
    public List<LockInfo> liveLocks(String namePrefix, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("liveLocks limit must be positive, got " + limit);
        }
        String prefix = binding.fullName(Objects.requireNonNull(namePrefix, "namePrefix"));
        List<LockEntry> entries = binding.call(null, () -> binding.store().list(prefix, limit));
        List<LockInfo> locks = new ArrayList<>(entries.size());
        for (LockEntry entry : entries) {
            locks.add(new LockInfo(
                    binding.name(),
                    entry.name(),
                    entry.owner(),
                    entry.holder(),
                    entry.acquiredAt(),
                    entry.expiresAt(),
                    entry.remaining(),
                    entry.fence()));
        }
        locks.sort((a, b) -> a.name().compareTo(b.name()));
        return locks.size() > limit ? List.copyOf(locks.subList(0, limit)) : List.copyOf(locks);
    }

    /**
     * Frees a lock whoever holds it. For operators; the holder is not told. The store's audit trail records it with
     * this registry's {@linkplain #instanceName() instance name} as the actor.
     *
     * @param name the lock's name, without the store prefix
     * @return {@code true} if a live lock was freed; {@code false} if it was free already
     */
    public boolean forceRelease(String name) {
        return forceRelease(name, context.instanceName());
    }

    /**
     * Frees a lock whoever holds it, on behalf of {@code actor}, whom the store's {@linkplain #auditTrail(int) audit
     * trail} names with the hold that was freed (the one the store showed just before). A failing audit write is
     * logged and does not fail the release.
     *
     * @param name  the lock's name, without the store prefix
     * @param actor who asks, such as an operator's principal name; never a secret: every operator reads it
     * @return {@code true} if a live lock was freed; {@code false} if it was free already
     * @throws InvalidLockNameException      if {@code name} breaks the rule in {@link LockNames}
     * @throws LockStoreUnavailableException if the store cannot be reached
     */
    public boolean forceRelease(String name, String actor) {
        return ((DefaultLock) lock(name, Duration.ofSeconds(1))).forceRelease(actor);
    }

    /**
     * This view's store's audit trail: force-releases and lost leases, newest first, as every server using the
     * store recorded them (see {@link LockStore#audit(AuditRecord)}), limited to this view's store prefix.
     *
     * @param limit the most records to read from the store; positive. With a store prefix, records of other
     *              prefixes among them are left out, so fewer may come back
     * @return at most {@code limit} records, newest first; empty for a store that keeps no trail
     * @throws IllegalArgumentException      if {@code limit} is not positive
     * @throws LockStoreUnavailableException if the store cannot be reached
     */
    public List<AuditRecord> auditTrail(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("auditTrail limit must be positive, got " + limit);
        }
        List<AuditRecord> records = binding.call(null, () -> binding.store().auditTrail(limit));
        if (binding.prefix().isEmpty()) {
            return List.copyOf(records);
        }
        return records.stream()
                .filter(record -> record.lockName().startsWith(binding.prefix()))
                .toList();
    }

    /**
     * Frees the hold an operator saw in {@link #liveLocks}, in the store it was listed from — only if that hold
     * still exists: if it ended and someone else took the lock in the meantime, the new holder is left alone.
     * Listeners hear it as a force-release; the store's audit trail records it with this registry's
     * {@linkplain #instanceName() instance name} as the actor.
     *
     * @param lock a lock from {@link #liveLocks}
     * @return {@code true} if the listed hold was freed; {@code false} if it had already ended
     * @throws UnknownStoreException         if its store is not configured here
     * @throws LockStoreUnavailableException if the store cannot be reached
     */
    public boolean forceRelease(LockInfo lock) {
        return forceRelease(lock, context.instanceName());
    }

    /**
     * {@link #forceRelease(LockInfo)} on behalf of {@code actor}, whom the store's {@linkplain #auditTrail(int)
     * audit trail} names with the listed hold. A failing audit write is logged and does not fail the release.
     *
     * @param lock  a lock from {@link #liveLocks}
     * @param actor who asks, such as the console user's principal name; never a secret: every operator reads it
     * @return {@code true} if the listed hold was freed; {@code false} if it had already ended
     * @throws UnknownStoreException         if its store is not configured here
     * @throws LockStoreUnavailableException if the store cannot be reached
     */
    public boolean forceRelease(LockInfo lock, String actor) {
        StoreBinding target = context.binding(lock.store());
        String name = LockNames.requireValidFullName(lock.name(), target.name());
        boolean released = target.call(name, () -> target.store().releaseHold(name, lock.owner(), lock.fence()));
        String group = target.group(name);
        context.tell(listener -> listener.forceReleased(target.name(), name, group, released));
        context.audit(
                target,
                DefaultLock.forced(
                        name,
                        lock.owner(),
                        lock.fence(),
                        lock.holder(),
                        actor,
                        released
                                ? "released: the listed hold ended here"
                                : "nothing released: the listed hold had already ended; a newer holder was left alone"));
        return released;
    }

    /** Stops renewals and closes every store of this registry. Locks held stay until their leases end. */
    @Override
    public void close() {
        context.close();
    }

    @Override
    public String toString() {
        return "LockRegistry[store=" + binding.name() + ", stores=" + storeNames() + "]";
    }

    /** Configures a {@link LockRegistry}. Not thread-safe; build once. */
    public static final class Builder {

        private final Map<String, StoreBinding> stores = new LinkedHashMap<>();
        private final List<LockListener> listeners = new ArrayList<>();
        private String defaultStore;
        private String instanceName;
        private ThreadFactory threads = Executors.defaultThreadFactory();

        private Builder() {}

        /**
         * Adds a store under a name, with no name prefix. The registry owns it and closes it.
         *
         * @param name  letters, digits, {@code _ . -}, at most 64
         * @param store the store
         * @return this builder
         */
        public Builder store(String name, LockStore store) {
            return store(name, store, "");
        }

        /**
         * Adds a store whose lock names all start with {@code prefix} (so that applications sharing a backend
         * keep apart). The registry owns the store and closes it.
         *
         * @param name   letters, digits, {@code _ . -}, at most 64
         * @param store  the store
         * @param prefix put before every lock name; may be empty
         * @return this builder
         * @throws IllegalArgumentException if the name is malformed or taken, or the prefix has control characters
         */
        public Builder store(String name, LockStore store, String prefix) {
            LockNames.requireValidStoreName(name);
            if (stores.containsKey(name)) {
                throw new IllegalArgumentException("Store '" + name + "' is added twice");
            }
            Objects.requireNonNull(store, "store");
            String safePrefix = LockNames.requireValidPrefix(name, prefix);
            stores.put(name, new StoreBinding(name, store, safePrefix));
            return this;
        }

        /**
         * Adds a store built by the installed {@link LockStoreProvider} of {@code type}.
         *
         * @param name     the store's name
         * @param type     the store type ({@code memory}, {@code file}, {@code redis}, {@code jpa})
         * @param settings the store's settings; {@code prefix} is the name prefix, the rest goes to the provider
         * @return this builder
         * @throws UnknownStoreException       if no provider of that type is installed
         * @throws LockConfigurationException  if the provider rejects a setting
         */
        public Builder store(String name, String type, Map<String, String> settings) {
            LockNames.requireValidStoreName(name);
            String prefix = LockNames.requireValidPrefix(name, settings.get("prefix"));
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            LockStore store = LockStoreProvider.create(
                    name, type, settings, loader != null ? loader : LockRegistry.class.getClassLoader(), threads);
            try {
                return store(name, store, prefix);
            } catch (IllegalArgumentException e) {
                store.close();
                throw e;
            }
        }

        /**
         * Where the registry's background threads (lease renewal) and those of stores added by type come from.
         * Inside a Jakarta EE server lock-cdi passes the container's {@code ManagedThreadFactory}; the default
         * makes plain threads. Every such thread is a daemon, named {@code exclusive-...}, and stopped by
         * {@link LockRegistry#close()}. Set it before adding stores by type.
         *
         * @param threads the thread factory
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        /**
         * @param name the store {@link LockRegistry#lock} uses; default the first added
         * @return this builder
         */
        public Builder defaultStore(String name) {
            this.defaultStore = name;
            return this;
        }

        /**
         * @param name recorded as the holder of every lock (default {@code host/pid})
         * @return this builder
         */
        public Builder instanceName(String name) {
            this.instanceName = name;
            return this;
        }

        /**
         * @param listener told of every acquisition, release, busy attempt, loss and force-release
         * @return this builder
         */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @return the registry
         * @throws UnknownStoreException if the default store is not one of the added stores
         */
        public LockRegistry build() {
            if (stores.isEmpty()) {
                store("memory", new MemoryLockStore());
            }
            String name = defaultStore != null
                    ? defaultStore
                    : stores.keySet().iterator().next();
            String instance = instanceName == null || instanceName.isBlank() ? defaultInstanceName() : instanceName;
            RegistryContext context = new RegistryContext(stores, instance, listeners, threads);
            return new LockRegistry(context, context.binding(name));
        }

        private static String defaultInstanceName() {
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                try {
                    host = InetAddress.getLocalHost().getHostName();
                } catch (java.io.IOException e) {
                    host = "localhost";
                }
            }
            return host + "/" + ProcessHandle.current().pid();
        }
    }
}

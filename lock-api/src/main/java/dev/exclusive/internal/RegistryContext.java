package dev.exclusive.internal;

import dev.exclusive.AuditRecord;
import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.UnknownStoreException;
import dev.exclusive.spi.NamedThreads;
import dev.exclusive.spi.Secrets;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What every view of one registry shares: its stores, instance name, listeners, the renewal threads that
 * {@code autoExtend} handles use (one per store), created the first time one needs it, and the lines of threads
 * that block on a busy lock ({@link LocalQueue}, one per store).
 */
public final class RegistryContext implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.exclusive");

    private final Map<String, StoreBinding> stores;
    private final String instanceName;
    private final List<LockListener> listeners;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ThreadFactory threads;
    private final Map<String, ScheduledThreadPoolExecutor> renewals = new ConcurrentHashMap<>();
    private final Map<String, LocalQueue> queues = new ConcurrentHashMap<>();
    /** The stores whose audit trail failed a write since this registry started: warned once each. */
    private final Set<String> auditWarned = ConcurrentHashMap.newKeySet();

    public RegistryContext(
            Map<String, StoreBinding> stores,
            String instanceName,
            List<LockListener> listeners,
            ThreadFactory threads) {
        this.stores = Map.copyOf(stores);
        this.instanceName = instanceName;
        this.listeners = List.copyOf(listeners);
        this.threads = threads;
    }

    public String instanceName() {
        return instanceName;
    }

    public Map<String, StoreBinding> stores() {
        return stores;
    }

    /** @throws UnknownStoreException naming the configured stores, if {@code storeName} is not one */
    public StoreBinding binding(String storeName) {
        StoreBinding binding = stores.get(storeName);
        if (binding == null) {
            throw new UnknownStoreException(
                    "Unknown store '" + storeName + "'; configured stores: "
                            + String.join(", ", new java.util.TreeSet<>(stores.keySet())),
                    storeName,
                    stores.keySet());
        }
        return binding;
    }

    /** Tells every listener, isolating the caller from listener failures. */
    public void tell(Consumer<LockListener> event) {
        for (LockListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (VirtualMachineError fatal) {
                throw fatal;
            } catch (Throwable e) {
                // also a LinkageError (a listener's library missing or of another version) and a checked exception
                // thrown by a listener in a language without checked exceptions: never the caller's concern
                LOG.log(Level.WARNING, "Lock listener " + listener + " failed; ignored", e);
            }
        }
    }

    public boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /**
     * The scheduler that renews the auto-extending leases of one store: one thread per store, created the first
     * time one of its handles needs it, so that a store stuck in its timeout delays only its own renewals.
     */
    public ScheduledThreadPoolExecutor renewals(StoreBinding binding) {
        ScheduledThreadPoolExecutor executor = renewals.get(binding.name());
        if (executor != null) {
            return executor;
        }
        synchronized (renewals) {
            if (closed.get()) {
                throw new IllegalStateException("The lock registry is closed; no lease can be auto-extended");
            }
            return renewals.computeIfAbsent(binding.name(), store -> {
                ScheduledThreadPoolExecutor created =
                        new ScheduledThreadPoolExecutor(1, NamedThreads.of(threads, "exclusive-renewal-" + store));
                created.setRemoveOnCancelPolicy(true);
                return created;
            });
        }
    }

    /** @return the line of this registry's threads that block on the locks of one store */
    LocalQueue queue(StoreBinding binding) {
        LocalQueue queue = queues.get(binding.name());
        return queue != null ? queue : queues.computeIfAbsent(binding.name(), store -> new LocalQueue());
    }

    /**
     * Appends to a store's audit trail after the event it records: a failure never reaches the caller, whose
     * force-release or release already happened. It is logged at {@code WARNING} the first time per store (the
     * message names the store and the lock, never the record's text), then at {@code DEBUG}.
     */
    public void audit(StoreBinding binding, AuditRecord record) {
        try {
            binding.store().audit(record);
        } catch (RuntimeException e) {
            boolean first = auditWarned.add(binding.name());
            LOG.log(
                    first ? Level.WARNING : Level.DEBUG,
                    "Store ''{0}'' could not append to its audit trail ({1} of lock ''{2}''): {3}; the {1} itself"
                            + " went ahead{4}",
                    binding.name(),
                    record.kind(),
                    record.lockName(),
                    Secrets.rulesOnly().mask(e.toString()),
                    first ? ". Later failures of this store's audit trail are logged at DEBUG" : "");
        }
    }

    static void warn(String message, Throwable cause) {
        LOG.log(Level.WARNING, message, cause);
    }

    static void logLost(Lock lock) {
        LOG.log(
                Level.WARNING,
                "Lock ''{0}'' in store ''{1}'' was lost while auto-extending: its lease ended"
                        + " before a renewal reached the store",
                lock.name(),
                lock.storeName());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (renewals) {
            renewals.values().forEach(ScheduledThreadPoolExecutor::shutdownNow);
        }
        RuntimeException failure = null;
        for (StoreBinding binding : stores.values()) {
            try {
                binding.store().close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

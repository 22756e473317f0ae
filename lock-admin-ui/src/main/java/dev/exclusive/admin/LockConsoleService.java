package dev.exclusive.admin;

import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.admin.internal.ConsoleAccess;
import dev.exclusive.admin.internal.ConsoleCaller;
import dev.exclusive.admin.internal.ConsoleSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the console shows and does, over a {@link LockRegistry}: reads the live locks of every configured store,
 * filtered, into a {@link LockSnapshot} that pages them sorted any way, and force-releases locks. The view calls
 * only this; it never touches a store.
 *
 * <h2>Paging, and what it costs</h2>
 * A store answers {@link LockRegistry#liveLocks(String, int) liveLocks(prefix, limit)} with at most {@code limit}
 * live locks: when it holds more, an arbitrary {@code limit} of them (the registry sorts what it got, but a store
 * has no order to stop at). So no page, not even the first by name, can be cut without reading every matching
 * lock: {@link #read} reads up to {@code scanLimit} locks of each store once (the prefix filter goes to the stores;
 * "contains" is matched here), and the snapshot sorts and pages them in memory. The console reads once per refresh
 * and serves every page the grid asks for from that snapshot, so the browser only ever receives the rows it shows,
 * while the server holds at most {@code scanLimit} locks per store per open console. A store that holds more
 * matching locks is reported in {@link LockSnapshot#truncated()}.
 *
 * <h2>Failures</h2>
 * A store that cannot be listed (unreachable, or failing in any other way) becomes a {@link StoreProblem} in the
 * snapshot; the other stores are listed as usual.
 *
 * <h2>Security</h2>
 * {@link #forceRelease} acts for the caller the container knows on the calling thread ({@link ConsoleCaller}),
 * not for whoever the view says: only an authenticated user in the console's role ({@code exclusive.console.role},
 * default {@code exclusive-admin}) releases anything; everyone else, and a thread with no caller at all, is refused
 * and logged at {@code WARNING}. Reading is not checked here: the view refuses users without the role, and its
 * refreshes also run on push and background threads that carry no caller.
 *
 * <p>Thread-safe.
 */
@ApplicationScoped
public class LockConsoleService {

    private static final System.Logger LOG = System.getLogger(LockConsoleService.class.getName());

    private final LockRegistry registry;
    private final int scanLimit;
    private final String role;
    private final ConsoleCaller caller;

    /** For the container's client proxy. */
    protected LockConsoleService() {
        this.registry = null;
        this.scanLimit = 0;
        this.role = null;
        this.caller = null;
    }

    /**
     * @param registry the registry whose stores the console lists (lock-cdi's default {@code LockRegistry})
     * @param settings the console's settings: the scan limit and the role a force-release needs
     * @param caller   who calls, as the container knows them
     */
    @Inject
    public LockConsoleService(LockRegistry registry, ConsoleSettings settings, ConsoleCaller caller) {
        if (settings.scanLimit() < 1) {
            throw new IllegalArgumentException("scanLimit must be positive, got " + settings.scanLimit());
        }
        this.registry = Objects.requireNonNull(registry, "registry");
        this.scanLimit = settings.scanLimit();
        this.role = Objects.requireNonNull(settings.role(), "role");
        this.caller = Objects.requireNonNull(caller, "caller");
    }

    /** @return the names of the configured stores, sorted */
    public Set<String> storeNames() {
        return registry.storeNames();
    }

    /** @return the most live locks read from one store for one query */
    public int scanLimit() {
        return scanLimit;
    }

    /**
     * Reads the live locks that {@code filter} selects from every store it includes: up to {@code scanLimit} from
     * each.
     *
     * @param filter which locks
     * @return the snapshot, with the stores that could not be listed
     */
    public LockSnapshot read(LockFilter filter) {
        List<LockInfo> matching = new ArrayList<>();
        List<StoreProblem> problems = new ArrayList<>();
        Set<String> truncated = new HashSet<>();
        Instant readAt = Instant.now();
        for (String store : registry.storeNames()) {
            if (!filter.includesStore(store)) {
                continue;
            }
            List<LockInfo> listed;
            try {
                listed = registry.store(store).liveLocks(filter.storePrefix(), scanLimit);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Store ''{0}'' could not be listed", store, e);
                problems.add(new StoreProblem(store, describe(e)));
                continue;
            }
            if (listed.size() >= scanLimit) {
                truncated.add(store);
            }
            for (LockInfo lock : listed) {
                if (filter.matches(lock)) {
                    matching.add(lock);
                }
            }
        }
        return new LockSnapshot(matching, problems, truncated, readAt);
    }

    /**
     * Frees a lock whoever holds it now, in the store it was listed from, if the caller is an authenticated user in
     * the console's role, and logs who did it. lock-cdi's registry fires {@code LockForceReleased} with the caller's
     * principal to every observer.
     *
     * @param lock a lock from {@link #read}
     * @return whether a live lock was freed or it was free already
     * @throws ForceReleaseRefusedException                if nobody is signed in on this thread, or the user is not
     *                                                     in the console's role; nothing is released then
     * @throws dev.exclusive.LockStoreUnavailableException if the store cannot be reached
     * @throws dev.exclusive.UnknownStoreException         if the lock's store is not configured here
     */
    public ForceReleaseOutcome forceRelease(LockInfo lock) {
        Principal principal = caller.principal();
        String user = principal == null ? null : principal.getName();
        if (ConsoleAccess.decide(principal, caller::isInRole, role) != ConsoleAccess.ALLOWED) {
            LOG.log(
                    Level.WARNING,
                    "Refused to force-release lock ''{0}'' in store ''{1}'' for {2}: {3}; nothing was released",
                    lock.name(),
                    lock.store(),
                    user == null ? "a caller who is not signed in" : "user '" + user + "'",
                    user == null ? "nobody is signed in" : "not in role '" + role + "'");
            throw new ForceReleaseRefusedException(lock.store(), lock.name(), user, role);
        }
        boolean released = registry.forceRelease(lock);
        ForceReleaseOutcome outcome = released ? ForceReleaseOutcome.RELEASED : ForceReleaseOutcome.ALREADY_RELEASED;
        LOG.log(
                Level.INFO,
                "Lock ''{0}'' in store ''{1}'' force-released by ''{2}'': {3} (listed holder {4},"
                        + " fence {5}, lease until {6})",
                lock.name(),
                lock.store(),
                user,
                outcome == ForceReleaseOutcome.RELEASED ? "released" : "it was already released",
                lock.holder(),
                lock.fence(),
                lock.expiresAt());
        return outcome;
    }

    private static String describe(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += " (" + cause.getMessage() + ")";
        }
        return message;
    }
}

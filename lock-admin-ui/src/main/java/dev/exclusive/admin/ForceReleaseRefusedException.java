package dev.exclusive.admin;

import java.util.Objects;
import java.util.Optional;

/**
 * The console refused a force-release because its caller is not an authenticated user in the console's role;
 * nothing was released. Either nobody is signed in on the calling thread ({@link #signInRequired()}: a login that
 * lapsed, or a call from outside a request), or the signed-in user lacks the role.
 */
public class ForceReleaseRefusedException extends SecurityException {

    private static final long serialVersionUID = 1L;

    /** The lock's store. */
    private final String storeName;
    /** The lock's full name. */
    private final String lockName;
    /** The signed-in user, or {@code null} when nobody is signed in. */
    private final String callerName;
    /** The role the console requires. */
    private final String role;

    /**
     * @param storeName  the lock's store
     * @param lockName   the lock's full name
     * @param callerName the signed-in user, {@code null} when nobody is signed in
     * @param role       the role the console requires
     */
    public ForceReleaseRefusedException(String storeName, String lockName, String callerName, String role) {
        super(message(storeName, lockName, callerName, role));
        this.storeName = Objects.requireNonNull(storeName, "storeName");
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.callerName = callerName;
        this.role = Objects.requireNonNull(role, "role");
    }

    private static String message(String storeName, String lockName, String callerName, String role) {
        String reason = callerName == null
                ? "nobody is signed in; sign in as a user in role '" + role + "'"
                : "user '" + callerName + "' is not in role '" + role + "'";
        return "Force-release of lock '" + lockName + "' in store '" + storeName + "' refused: " + reason
                + "; nothing was released";
    }

    /** @return the lock's store */
    public String storeName() {
        return storeName;
    }

    /** @return the lock's full name */
    public String lockName() {
        return lockName;
    }

    /** @return the signed-in user who was refused; empty when nobody was signed in */
    public Optional<String> callerName() {
        return Optional.ofNullable(callerName);
    }

    /** @return the role the console requires */
    public String role() {
        return role;
    }

    /** @return whether nobody was signed in, so that signing in (again) may help */
    public boolean signInRequired() {
        return callerName == null;
    }
}

package dev.exclusive.admin.internal;

import java.security.Principal;
import java.util.function.Predicate;

/** Who may see the console: the decision, apart from Vaadin so that it reads (and tests) as a table. */
public enum ConsoleAccess {
    /** An authenticated user in the console's role. */
    ALLOWED,
    /** Nobody is signed in: the user is sent to the application's login. */
    LOGIN_REQUIRED,
    /** A signed-in user without the role: refused with a page that says so. */
    REFUSED;

    /**
     * @param user   the request's principal, {@code null} when nobody is signed in
     * @param inRole whether the request's user is in a role
     * @param role   the console's role
     * @return the decision
     */
    public static ConsoleAccess decide(Principal user, Predicate<String> inRole, String role) {
        if (user == null) {
            return LOGIN_REQUIRED;
        }
        return inRole.test(role) ? ALLOWED : REFUSED;
    }
}

package dev.exclusive.admin.internal;

import jakarta.enterprise.inject.spi.BeanManager;
import java.lang.System.Logger.Level;
import java.security.Principal;

/**
 * Who calls the console's service, as the container knows them on the calling thread: the service asks this, not
 * the view, before it does anything on a user's behalf.
 *
 * <p>{@link #fromContainer} prefers Jakarta Security's {@code SecurityContext}: it is the API lock-cdi already asks
 * for the principal it puts in {@code LockForceReleased}, so the check and the audit name the same caller; and on
 * Open Liberty it reads the identity bound to the thread with the application's own role mapping, which is what
 * Vaadin's request threads carry. Without Jakarta Security (a plain servlet container with CDI) it uses the
 * CDI-injectable {@code HttpServletRequest}. A thread that is not serving a request (a push or background thread,
 * where neither answers) has no caller, so the service refuses.
 */
public interface ConsoleCaller {

    /** @return the authenticated caller, {@code null} when nobody is authenticated on this thread */
    Principal principal();

    /**
     * @param role a role of the application
     * @return whether the authenticated caller is in {@code role}; {@code false} when nobody is authenticated
     */
    boolean isInRole(String role);

    /** @return a caller that is never authenticated: every check refuses */
    static ConsoleCaller nobody() {
        return NoCaller.INSTANCE;
    }

    /**
     * @param beans the application's bean manager
     * @return the caller from Jakarta Security when the application has it, else from the servlet request, else
     *         {@link #nobody()}
     */
    static ConsoleCaller fromContainer(BeanManager beans) {
        if (SecurityContextCaller.available(beans)) {
            return SecurityContextCaller.of(beans);
        }
        if (ServletRequestCaller.available(beans)) {
            return ServletRequestCaller.of(beans);
        }
        System.getLogger(ConsoleCaller.class.getName())
                .log(
                        Level.WARNING,
                        "The lock console finds neither Jakarta Security's SecurityContext nor an injectable"
                                + " HttpServletRequest, so it cannot tell who calls it and refuses every"
                                + " force-release; enable Jakarta Security (on Open Liberty: feature appSecurity-5.0)");
        return nobody();
    }
}

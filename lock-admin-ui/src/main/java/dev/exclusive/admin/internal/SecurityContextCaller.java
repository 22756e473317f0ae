package dev.exclusive.admin.internal;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.security.enterprise.SecurityContext;
import java.security.Principal;

/**
 * The caller from Jakarta Security; a class of its own so that its API is only loaded when the application has it
 * (on Open Liberty only with feature appSecurity).
 */
final class SecurityContextCaller implements ConsoleCaller {

    private final Instance<SecurityContext> security;

    private SecurityContextCaller(Instance<SecurityContext> security) {
        this.security = security;
    }

    static boolean available(BeanManager beans) {
        return present("jakarta.security.enterprise.SecurityContext")
                && !beans.getBeans(SecurityContext.class).isEmpty();
    }

    static ConsoleCaller of(BeanManager beans) {
        return new SecurityContextCaller(beans.createInstance().select(SecurityContext.class));
    }

    @Override
    public Principal principal() {
        try {
            return security.get().getCallerPrincipal();
        } catch (RuntimeException noCaller) {
            // a thread without the application's context (Liberty needs its component metadata): nobody
            return null;
        }
    }

    @Override
    public boolean isInRole(String role) {
        try {
            return principal() != null && security.get().isCallerInRole(role);
        } catch (RuntimeException noCaller) {
            return false;
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, SecurityContextCaller.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "the caller from Jakarta Security's SecurityContext";
    }
}

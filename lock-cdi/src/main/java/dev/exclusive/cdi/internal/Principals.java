package dev.exclusive.cdi.internal;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import java.security.Principal;
import java.util.function.Supplier;

/**
 * The caller's principal name for {@code LockForceReleased}: from Jakarta Security's {@code SecurityContext} when
 * the application has one, else from an injectable {@link Principal}, else none. A lookup outside a request (no
 * active context, no caller) gives {@code null}.
 */
final class Principals {

    private Principals() {}

    static Supplier<String> of(BeanManager beanManager, ClassLoader loader) {
        if (present("jakarta.security.enterprise.SecurityContext", loader)) {
            Supplier<String> fromSecurity = SecurityContextPrincipals.of(beanManager);
            if (fromSecurity != null) {
                return fromSecurity;
            }
        }
        if (!beanManager.getBeans(Principal.class).isEmpty()) {
            Instance<Principal> principals = beanManager.createInstance().select(Principal.class);
            return () -> nameOf(principals);
        }
        return () -> null;
    }

    static String nameOf(Instance<? extends Principal> principal) {
        try {
            Principal caller = principal.get();
            return caller == null ? null : caller.getName();
        } catch (RuntimeException noCaller) {
            // no active context or no authenticated caller here: the event then names nobody
            return null;
        }
    }

    private static boolean present(String className, ClassLoader loader) {
        try {
            Class.forName(className, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}

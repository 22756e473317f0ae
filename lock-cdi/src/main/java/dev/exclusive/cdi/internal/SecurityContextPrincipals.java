package dev.exclusive.cdi.internal;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.security.enterprise.SecurityContext;
import java.security.Principal;
import java.util.function.Supplier;

/** Principal names from Jakarta Security; apart from {@link Principals} so that its API loads only when present. */
final class SecurityContextPrincipals {

    private SecurityContextPrincipals() {}

    /** @return a supplier of the caller's name, or {@code null} if the application has no {@code SecurityContext} */
    static Supplier<String> of(BeanManager beanManager) {
        if (beanManager.getBeans(SecurityContext.class).isEmpty()) {
            return null;
        }
        Instance<SecurityContext> security = beanManager.createInstance().select(SecurityContext.class);
        return () -> {
            try {
                Principal caller = security.get().getCallerPrincipal();
                return caller == null ? null : caller.getName();
            } catch (RuntimeException noCaller) {
                // outside a request there is no caller: the event then names nobody
                return null;
            }
        };
    }
}

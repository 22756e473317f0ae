package dev.exclusive.admin.internal;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;

/**
 * The caller from the servlet request CDI makes injectable: for a servlet container without Jakarta Security. On a
 * thread that serves no request the request context is not active, so nobody calls.
 */
final class ServletRequestCaller implements ConsoleCaller {

    private final Instance<HttpServletRequest> request;

    private ServletRequestCaller(Instance<HttpServletRequest> request) {
        this.request = request;
    }

    static boolean available(BeanManager beans) {
        return !beans.getBeans(HttpServletRequest.class).isEmpty();
    }

    static ConsoleCaller of(BeanManager beans) {
        return new ServletRequestCaller(beans.createInstance().select(HttpServletRequest.class));
    }

    @Override
    public Principal principal() {
        try {
            return request.get().getUserPrincipal();
        } catch (RuntimeException noRequest) {
            // ContextNotActiveException outside a request, or a request that has already ended
            return null;
        }
    }

    @Override
    public boolean isInRole(String role) {
        try {
            return principal() != null && request.get().isUserInRole(role);
        } catch (RuntimeException noRequest) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "the caller of the current servlet request";
    }
}

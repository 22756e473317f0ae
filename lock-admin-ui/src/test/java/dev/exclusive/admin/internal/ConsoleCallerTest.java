package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Produces;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.SecurityContext;
import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.security.Principal;
import java.util.Set;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** Where the console learns who calls: the container's standard APIs, chosen once, asked on every call. */
class ConsoleCallerTest {

    /** Jakarta Security as a server provides it, with one signed-in caller. */
    @ApplicationScoped
    static class SecurityContextOfAdmin implements SecurityContext {

        @Override
        public Principal getCallerPrincipal() {
            return () -> "admin";
        }

        @Override
        public <T extends Principal> Set<T> getPrincipalsByType(Class<T> type) {
            return Set.of();
        }

        @Override
        public boolean isCallerInRole(String role) {
            return role.equals("exclusive-admin");
        }

        @Override
        public boolean hasAccessToWebResource(String resource, String... methods) {
            return false;
        }

        @Override
        public AuthenticationStatus authenticate(
                HttpServletRequest request, HttpServletResponse response, AuthenticationParameters parameters) {
            return AuthenticationStatus.NOT_DONE;
        }
    }

    /** The request CDI makes injectable in a servlet container: only while a request is served. */
    static class ServletRequests {

        @Produces
        @RequestScoped
        HttpServletRequest request() {
            return (HttpServletRequest) Proxy.newProxyInstance(
                    HttpServletRequest.class.getClassLoader(),
                    new Class<?>[] {HttpServletRequest.class},
                    (proxy, method, arguments) -> switch (method.getName()) {
                        case "getUserPrincipal" -> (Principal) () -> "operator";
                        case "isUserInRole" -> "exclusive-admin".equals(arguments[0]);
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == arguments[0];
                        case "toString" -> "request of operator";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }
    }

    private static WeldContainer start(Class<?>... beans) {
        return new Weld("caller-test")
                .disableDiscovery()
                .beanClasses(ConsoleBeans.class)
                .addBeanClasses(beans)
                .initialize();
    }

    @Test
    void jakartaSecurityNamesTheCallerAndItsRoles() {
        try (WeldContainer container = start(SecurityContextOfAdmin.class, ServletRequests.class)) {
            ConsoleCaller caller = container.select(ConsoleCaller.class).get();

            assertThat(caller.principal().getName()).isEqualTo("admin");
            assertThat(caller.isInRole("exclusive-admin")).isTrue();
            assertThat(caller.isInRole("lock-ops")).isFalse();
        }
    }

    @Test
    void withoutJakartaSecurityTheServletRequestNamesTheCallerWhileItIsServed() {
        try (WeldContainer container = start(ServletRequests.class)) {
            ConsoleCaller caller = container.select(ConsoleCaller.class).get();
            RequestContextController request =
                    container.select(RequestContextController.class).get();

            request.activate();
            try {
                assertThat(caller.principal().getName()).isEqualTo("operator");
                assertThat(caller.isInRole("exclusive-admin")).isTrue();
            } finally {
                request.deactivate();
            }
            assertThat(caller.principal())
                    .as("a thread that serves no request (push, background)")
                    .isNull();
            assertThat(caller.isInRole("exclusive-admin")).isFalse();
        }
    }

    @Test
    void withNeitherNobodyCallsAndEveryRoleCheckFails() {
        try (WeldContainer container = start()) {
            ConsoleCaller caller = container.select(ConsoleCaller.class).get();

            assertThat(caller.principal()).isNull();
            assertThat(caller.isInRole("exclusive-admin")).isFalse();
        }
    }
}

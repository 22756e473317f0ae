package dev.exclusive.admin;

import dev.exclusive.admin.internal.ConsoleCaller;
import java.security.Principal;
import java.util.Set;

/** A caller as a container would report it: a signed-in user with roles, or nobody. */
record TestCaller(String name, Set<String> roles) implements ConsoleCaller {

    static TestCaller user(String name, String... roles) {
        return new TestCaller(name, Set.of(roles));
    }

    static TestCaller nobody() {
        return new TestCaller(null, Set.of());
    }

    @Override
    public Principal principal() {
        return name == null ? null : () -> name;
    }

    @Override
    public boolean isInRole(String role) {
        return name != null && roles.contains(role);
    }
}

package dev.exclusive.admin.internal;

import java.security.Principal;

/** Nobody is authenticated: outside a container, or where the container offers no way to ask. */
enum NoCaller implements ConsoleCaller {
    INSTANCE;

    @Override
    public Principal principal() {
        return null;
    }

    @Override
    public boolean isInRole(String role) {
        return false;
    }

    @Override
    public String toString() {
        return "nobody";
    }
}

package dev.exclusive.demo.rest;

/** The security roles the demo declares in {@code web.xml}. */
public final class Roles {

    /** May see every store's live locks and force-release them (the console, issue 7, uses the same role). */
    public static final String EXCLUSIVE_ADMIN = "exclusive-admin";

    private Roles() {}
}

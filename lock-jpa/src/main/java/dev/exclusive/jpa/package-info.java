/**
 * The {@code jpa} store: locks in a database table that every server shares, on Jakarta Persistence, with the
 * database's clock deciding every expiry. Start at {@link dev.exclusive.jpa.JpaLockStore}.
 */
package dev.exclusive.jpa;

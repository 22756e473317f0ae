/**
 * The {@code jpa} store: locks in a database table that every server shares, on Jakarta Persistence, with the
 * database's clock deciding every expiry. Start at {@link dev.exclusive.jpa.JpaLockStore}; {@link
 * dev.exclusive.jpa.Fences} lets the database refuse the writes of a holder whose lease has ended.
 */
package dev.exclusive.jpa;

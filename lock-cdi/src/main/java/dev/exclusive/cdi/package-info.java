/**
 * Exclusive for CDI: {@link dev.exclusive.cdi.Exclusive @Exclusive} lets one caller at a time run a bean method,
 * stores come from MicroProfile Config, and {@code LockRegistry} beans, lock events and a readiness check come free.
 */
package dev.exclusive.cdi;

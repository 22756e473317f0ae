/**
 * The {@code memory} store: locks shared by the threads of one JVM, with no backend to run. For tests, single
 * servers, and as the default when nothing is configured.
 */
package dev.exclusive.memory;

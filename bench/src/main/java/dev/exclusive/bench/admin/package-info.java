/**
 * Benchmarks of the lock console's service (lock-admin-ui): what the first page of many live locks costs the
 * server.
 */
package dev.exclusive.bench.admin;

/**
 * Benchmarks of {@code @Exclusive}: the interceptor on the memory store against the same work through the
 * programmatic {@code LockRegistry}, so that the difference is the CDI overhead per call.
 */
package dev.exclusive.bench.cdi;

/**
 * Benchmarks of {@code LockStatistics}: what one event costs, and the same acquire and release with and without the
 * statistics listener, so that the difference is what the console's statistics cost per call.
 */
package dev.exclusive.bench.stats;

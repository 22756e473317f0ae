/**
 * Benchmarks of lock-otel: the same acquire and release with and without {@code LockTelemetry} recording into the
 * OpenTelemetry SDK, so that the difference is what the metrics cost per call.
 */
package dev.exclusive.bench.otel;

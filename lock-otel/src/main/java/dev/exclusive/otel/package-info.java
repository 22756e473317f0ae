/**
 * OpenTelemetry metrics and span events for locks: {@link dev.exclusive.otel.LockTelemetry}, a listener over the
 * OpenTelemetry API only. Needs {@code io.opentelemetry:opentelemetry-api} at run time, which this module does not bring.
 */
package dev.exclusive.otel;

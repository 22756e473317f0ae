/**
 * The console's wiring: settings from MicroProfile Config, route registration, access decisions, live updates and
 * formatting. Not for applications; may change.
 */
package dev.exclusive.admin.internal;

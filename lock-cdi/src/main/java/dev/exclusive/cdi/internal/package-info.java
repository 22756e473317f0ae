/**
 * The CDI adapter behind {@code dev.exclusive.cdi}: the portable extension, the interceptor and their plans.
 * Neither for users nor for store authors, and free to change between releases.
 */
package dev.exclusive.cdi.internal;

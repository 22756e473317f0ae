/**
 * The implementation behind the public API: neither for users nor for store authors, and free to change
 * between releases.
 */
package dev.exclusive.internal;

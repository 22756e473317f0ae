/**
 * The operator console: a Vaadin view of every live lock across the configured stores, and the service behind it
 * (listing, filtering, paging, force-release). Applications add it by depending on the jar.
 */
package dev.exclusive.admin;

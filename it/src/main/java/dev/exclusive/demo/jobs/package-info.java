/**
 * Jobs that must not run twice at once: a report rebuild that skips when one is running, a user import that
 * waits its turn, a nightly export that one server of the cluster runs, and an export locked by hand.
 */
package dev.exclusive.demo.jobs;

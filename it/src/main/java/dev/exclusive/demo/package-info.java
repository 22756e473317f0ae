/**
 * The Exclusive demo application: a small shop and a few jobs on Open Liberty that show each way of using
 * {@code @Exclusive} and the injected {@code LockRegistry}. Not a library: nothing here is API.
 */
package dev.exclusive.demo;

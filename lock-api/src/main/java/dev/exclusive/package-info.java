/**
 * The public API of Exclusive: a {@link dev.exclusive.LockRegistry} hands out {@link dev.exclusive.Lock}
 * handles that let one caller at a time run a piece of work, across threads, processes and servers.
 */
package dev.exclusive;

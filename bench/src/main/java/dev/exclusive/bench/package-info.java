/**
 * Benchmarks: each store measured against a reference in the same run (a concurrent map, {@code ReentrantLock},
 * raw Jedis, raw JDBC, Redisson), so that the figures are ratios that hold on any machine.
 */
package dev.exclusive.bench;

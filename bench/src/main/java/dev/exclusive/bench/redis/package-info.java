/**
 * The Redis store against raw Jedis (the two-round-trip floor) and Redisson's {@code RLock}, on the Redis at
 * {@code redis://127.0.0.1:6379} (or the URL in the system property {@code redis.url}).
 */
package dev.exclusive.bench.redis;

/**
 * The {@code redis} store: locks shared by every server connected to the same Redis (standalone, Sentinel or
 * Cluster), on Jedis. Start with {@link dev.exclusive.redis.RedisLockStore}.
 */
package dev.exclusive.redis;

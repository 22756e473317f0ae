package dev.exclusive.redis;

import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Secrets;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * Turns Jedis failures into {@link LockStoreUnavailableException}: every one of them (connection refused,
 * timeouts, a Redis gone mid-call, Cluster errors, an exhausted pool) means the store could not answer. A
 * connection failure also drops the idle pooled connections, which die together when Redis restarts. Messages and
 * causes pass through {@link Secrets}, in case Jedis repeated a URL or a password.
 */
final class RedisFailures {

    private final String storeName;
    private final RedisTopology topology;

    RedisFailures(String storeName, RedisTopology topology) {
        this.storeName = storeName;
        this.topology = topology;
    }

    /**
     * @param lockName the lock concerned, or {@code null}
     * @param action   what the store tried, such as {@code acquire}
     * @param failure  what Jedis threw
     * @return the exception to throw, naming the store, the lock, the target and the fix
     */
    LockStoreUnavailableException unavailable(String lockName, String action, JedisException failure) {
        if (failure instanceof JedisConnectionException || failure.getCause() instanceof JedisConnectionException) {
            dropIdleConnections();
        }
        String what = lockName == null ? action : action + " lock '" + lockName + "'";
        Secrets secrets = topology.secrets();
        return new LockStoreUnavailableException(
                "Redis store '" + storeName + "' could not " + what + " on " + topology.target() + ": "
                        + secrets.mask(failure.getMessage()) + "; " + hint(failure),
                lockName,
                storeName,
                secrets.mask(failure));
    }

    /**
     * @return what to check: Redis refused this user (a wrong password, an ACL without the store's keys, channels or
     *     commands), or it did not answer
     */
    private static String hint(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            // contains, not startsWith: a refusal inside a script arrives as "ERR Error running script ...: NOPERM ..."
            if (cause instanceof JedisAccessControlException
                    || message.contains("NOPERM")
                    || message.contains("WRONGPASS")
                    || message.contains("NOAUTH")) {
                return "check the store's user and password, and that the user's ACL grants the keys and channels"
                        + " exclusive:* (~exclusive:* &exclusive:*) and the commands the store runs";
            }
        }
        return "check that Redis is running and reachable";
    }

    /** @return the exception for a Cluster or Sentinels that cannot be reached while the store is built */
    static LockStoreUnavailableException unreachable(RedisTopology.Settings settings, JedisException failure) {
        Secrets secrets = settings.secrets();
        return new LockStoreUnavailableException(
                "Redis store '" + settings.storeName() + "' cannot reach "
                        + (settings.clusterNodes().isEmpty()
                                ? "the sentinels " + RedisTopology.describe(settings.sentinels())
                                : "the cluster " + RedisTopology.describe(settings.clusterNodes()))
                        + ": " + secrets.mask(failure.getMessage()),
                null,
                settings.storeName(),
                secrets.mask(failure));
    }

    /** @return whether {@code failure} was caused by an interrupt, which cleared the thread's flag as it was thrown */
    static boolean interrupted(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops idle pooled connections after a connection failure: after a Redis restart they are all dead, and
     * each would fail one call before the pool noticed.
     */
    private void dropIdleConnections() {
        try {
            for (Pool<Connection> pool : topology.pools()) {
                pool.clear();
            }
        } catch (RuntimeException e) {
            // best effort: the pool also validates idle connections in the background
        }
    }
}

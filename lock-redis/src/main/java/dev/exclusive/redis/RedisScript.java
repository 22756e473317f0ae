package dev.exclusive.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script of this package's resources, run by its SHA-1 ({@code EVALSHA}). A Redis that does not know the
 * script yet (first use, restart, {@code SCRIPT FLUSH}, a new Cluster node) answers {@code NOSCRIPT}; the script
 * is then sent once with {@code EVAL}, which also caches it on that server.
 */
record RedisScript(String name, String source, String sha) {

    static final RedisScript ACQUIRE = load("acquire");
    static final RedisScript RELEASE = load("release");
    static final RedisScript RELEASE_AFTER = load("release-after");
    static final RedisScript WAIT = load("wait");
    static final RedisScript EXTEND = load("extend");
    static final RedisScript FORCE_RELEASE = load("force-release");
    static final RedisScript INSPECT = load("inspect");
    static final RedisScript AUDIT = load("audit");
    static final RedisScript AUDIT_TRAIL = load("audit-trail");

    /** Runs the script on the node that owns {@code keys}; Jedis exceptions pass through. */
    Object run(UnifiedJedis client, List<String> keys, List<String> args) {
        try {
            return client.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return client.eval(source, keys, args);
        }
    }

    /** Runs the script on one connection (whose writes a {@code WAIT} after it then covers). */
    Object run(Jedis connection, List<String> keys, List<String> args) {
        try {
            return connection.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return connection.eval(source, keys, args);
        }
    }

    private static RedisScript load(String name) {
        String resource = name + ".lua";
        try (InputStream in = RedisScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource dev/exclusive/redis/" + resource);
            }
            String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new RedisScript(name, source, HexFormat.of().formatHex(digest));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read script resource dev/exclusive/redis/" + resource, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}

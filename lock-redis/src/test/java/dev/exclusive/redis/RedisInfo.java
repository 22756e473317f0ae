package dev.exclusive.redis;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** Figures from {@code INFO} of one Redis node, for the tests that measure what the store costs Redis. */
final class RedisInfo {

    private RedisInfo() {}

    /** @return bytes allocated by the node ({@code used_memory}) */
    static long usedMemory(int port) {
        return Long.parseLong(field(port, "memory", "used_memory"));
    }

    /** @return CPU seconds the node has used, system and user ({@code used_cpu_sys + used_cpu_user}) */
    static double cpuSeconds(int port) {
        return Double.parseDouble(field(port, "cpu", "used_cpu_sys"))
                + Double.parseDouble(field(port, "cpu", "used_cpu_user"));
    }

    /**
     * @return how often the node ran {@code PUBLISH} and {@code SPUBLISH}, from scripts too ({@code INFO
     *         commandstats} counts the commands a script calls)
     */
    static long publishes(int port) {
        return calls(port, "publish") + calls(port, "spublish");
    }

    /** @return keys in the node's database 0 */
    static long keys(int port) {
        try (Jedis jedis = connect(port)) {
            return jedis.dbSize();
        }
    }

    /** @return the {@code calls} of one command in {@code INFO commandstats}, 0 if it never ran */
    static long calls(int port, String command) {
        String stats = field(port, "commandstats", "cmdstat_" + command);
        if (stats == null) {
            return 0;
        }
        for (String part : stats.split(",")) {
            if (part.startsWith("calls=")) {
                return Long.parseLong(part.substring("calls=".length()));
            }
        }
        return 0;
    }

    /** @return one {@code field:value} of an {@code INFO} section, or {@code null} when absent */
    static String field(int port, String section, String field) {
        String info;
        try (Jedis jedis = connect(port)) {
            info = jedis.info(section);
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        return null;
    }

    private static Jedis connect(int port) {
        return new Jedis(new HostAndPort(RedisServers.HOST, port));
    }
}

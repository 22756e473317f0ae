package dev.exclusive.redis;

import dev.exclusive.spi.LockEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Lists live locks by name prefix: {@code SCAN MATCH} with the escaped prefix on every keyspace of the topology
 * (each master in Cluster), and each page of keys read with the inspect script, which leaves out expired locks.
 * Jedis failures pass through.
 */
final class RedisLister {

    private static final int SCAN_COUNT = 500;

    private final RedisTopology topology;

    RedisLister(RedisTopology topology) {
        this.topology = topology;
    }

    /** @return at most {@code limit} live locks whose name starts with {@code prefix}, in no particular order */
    List<LockEntry> list(String prefix, int limit) {
        String pattern = RedisKeys.scanPattern(prefix);
        List<LockEntry> found = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (RedisTopology.Keyspace keyspace : topology.keyspaces()) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page =
                        keyspace.scan(cursor, new ScanParams().match(pattern).count(SCAN_COUNT));
                List<String> keys = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (String key : page.getResult()) {
                    String name = seen.add(key) ? RedisKeys.nameOf(key) : null;
                    if (name != null && name.startsWith(prefix)) {
                        keys.add(key);
                        names.add(name);
                    }
                }
                for (LockEntry entry : inspectAll(keys, names)) {
                    found.add(entry);
                    if (found.size() >= limit) {
                        return found;
                    }
                }
                cursor = page.getCursor();
            } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
        }
        return found;
    }

    /**
     * Inspects a page of keys in one round trip (a pipeline of the inspect script, routed by key on a Cluster),
     * so that listing 10,000 locks costs a few dozen round trips, not 10,000. A key whose script is not loaded
     * on its node is inspected on its own, which loads it.
     */
    private List<LockEntry> inspectAll(List<String> keys, List<String> names) {
        if (keys.isEmpty()) {
            return List.of();
        }
        UnifiedJedis client = topology.client();
        List<Response<Object>> replies = new ArrayList<>(keys.size());
        try (AbstractPipeline pipeline = client.pipelined()) {
            for (String key : keys) {
                replies.add(pipeline.evalsha(RedisScript.INSPECT.sha(), List.of(key), List.of()));
            }
            pipeline.sync();
        }
        List<LockEntry> entries = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            Object reply;
            try {
                reply = replies.get(i).get();
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) {
                    throw e;
                }
                reply = RedisScript.INSPECT.run(client, List.of(keys.get(i)), List.of());
            }
            LockEntry entry = RedisReplies.entry(names.get(i), reply);
            if (entry != null) {
                entries.add(entry);
            }
        }
        return entries;
    }
}

package dev.exclusive.bench.redis;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.bench.BalancedOrders;
import dev.exclusive.redis.RedisLockStore;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * The single-thread comparison of {@link RedisAcquireReleaseBenchmark}, paired: each round runs 1,000 acquire+release
 * through the raw Jedis floor ({@code SET NX PX} + the compare-and-delete {@code EVALSHA}, on a pooled
 * {@code RedisClient} as the store's), 1,000 through the public API of the Redis store (a new handle per acquisition),
 * 1,000 through the store's SPI alone and 1,000 through the fenced floor, in the orders of {@link BalancedOrders}, so
 * that load from other processes on a shared machine hits them alike. Prints the ratios per round (throughput / floor
 * throughput) and their medians and ranges. Target: the public API's median at least 0.9.
 *
 * <p>The fenced floor is the least a lock with fencing tokens can do on Redis, which the store's contract asks for
 * ({@code fence()} grows with every hold of a name) and the floor lacks: one {@code EVALSHA} that takes the key with
 * {@code SET NX PX} and, only when that took it, {@code INCR}s the name's counter for the fence (one script, since the
 * two must happen together), and the floor's compare-and-delete to release. Nothing else: no holder, no acquisition
 * time, no remaining time for a busy answer, no counter retention, no waiters. The store against it says how far the
 * store is from the closest design with the same guarantees.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.redis.RedisPairedAcquireRelease [rounds]</pre>
 */
public final class RedisPairedAcquireRelease {

    private static final int OPS = 1_000;

    /** The fenced floor's acquire: KEYS[1] the lock, KEYS[2] its fence counter; ARGV[1] owner, ARGV[2] ttl ms. */
    static final String FENCED_ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then"
            + " return redis.call('INCR', KEYS[2]) end return 0";

    private RedisPairedAcquireRelease() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String url = RedisAcquireReleaseBenchmark.URL;
        String run = "paired-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        try (RedisClient jedis = RedisClient.create(URI.create(url));
                LockRegistry registry = LockRegistry.builder()
                        .store("redis", RedisLockStore.create(URI.create(url)))
                        .build()) {
            String sha = jedis.scriptLoad(RedisAcquireReleaseBenchmark.RELEASE);
            String fencedSha = jedis.scriptLoad(FENCED_ACQUIRE);
            Runnable floor = () -> {
                String key = run + "raw";
                for (int i = 0; i < OPS; i++) {
                    String owner = Integer.toString(i);
                    if (!"OK"
                                    .equals(jedis.set(
                                            key,
                                            owner,
                                            SetParams.setParams().nx().px(30_000)))
                            || !Long.valueOf(1).equals(jedis.evalsha(sha, List.of(key), List.of(owner)))) {
                        throw new IllegalStateException("uncontended raw acquire+release failed");
                    }
                }
            };
            Runnable store = () -> {
                for (int i = 0; i < OPS; i++) {
                    Lock lock = registry.lock(run + "lock", Duration.ofSeconds(30));
                    if (!lock.get() || !lock.release()) {
                        throw new IllegalStateException("uncontended acquire+release failed");
                    }
                }
            };
            RedisLockStore spi = RedisLockStore.create(URI.create(url));
            LockHolder holder = new LockHolder("bench", "main", "");
            Runnable storeSpi = () -> {
                for (int i = 0; i < OPS; i++) {
                    String owner = "owner-" + i;
                    if (!spi.tryAcquire(run + "spi", owner, holder, Duration.ofSeconds(30))
                                    .acquired()
                            || !spi.release(run + "spi", owner)) {
                        throw new IllegalStateException("uncontended acquire+release failed");
                    }
                }
            };
            // one hash tag for both keys, as a Cluster needs; the counter is deleted at the end
            List<String> fencedKeys = List.of("{" + run + "fenced}", "{" + run + "fenced}:fence");
            Runnable fencedFloor = () -> {
                for (int i = 0; i < OPS; i++) {
                    String owner = Integer.toString(i);
                    Object fence = jedis.evalsha(fencedSha, fencedKeys, List.of(owner, "30000"));
                    if (!(fence instanceof Long number && number > 0)
                            || !Long.valueOf(1).equals(jedis.evalsha(sha, fencedKeys.subList(0, 1), List.of(owner)))) {
                        throw new IllegalStateException("uncontended fenced acquire+release failed");
                    }
                }
            };
            List<Runnable> subjects = List.of(floor, store, storeSpi, fencedFloor);
            List<int[]> orders = BalancedOrders.of(subjects.size());
            double[] api = new double[rounds];
            double[] direct = new double[rounds];
            double[] fenced = new double[rounds];
            double[] fencedCost = new double[rounds];
            try {
                for (int round = -3; round < rounds; round++) { // three warm-up rounds
                    long[] nanos = new long[subjects.size()];
                    for (int subject : orders.get(Math.floorMod(round, orders.size()))) {
                        nanos[subject] = time(subjects.get(subject));
                    }
                    if (round >= 0) {
                        api[round] = (double) nanos[0] / nanos[1];
                        direct[round] = (double) nanos[0] / nanos[2];
                        fenced[round] = (double) nanos[3] / nanos[1];
                        fencedCost[round] = (double) nanos[0] / nanos[3];
                        System.out.printf(
                                Locale.ROOT,
                                "round %2d: floor %,6.0f ops/s, store %,6.0f ops/s (%.2f), its SPI %,6.0f ops/s (%.2f),"
                                        + " fenced floor %,6.0f ops/s (%.2f; store / fenced floor %.2f)%n",
                                round,
                                OPS / (nanos[0] / 1e9),
                                OPS / (nanos[1] / 1e9),
                                api[round],
                                OPS / (nanos[2] / 1e9),
                                direct[round],
                                OPS / (nanos[3] / 1e9),
                                fencedCost[round],
                                fenced[round]);
                    }
                }
            } finally {
                spi.close();
                jedis.del(fencedKeys.get(1));
            }
            Arrays.sort(api);
            Arrays.sort(direct);
            Arrays.sort(fenced);
            Arrays.sort(fencedCost);
            System.out.printf(
                    Locale.ROOT,
                    "%d rounds, / floor: store median %.2f (range %.2f–%.2f), its SPI median %.2f (range %.2f–%.2f)%n",
                    rounds,
                    api[rounds / 2],
                    api[0],
                    api[rounds - 1],
                    direct[rounds / 2],
                    direct[0],
                    direct[rounds - 1]);
            System.out.printf(
                    Locale.ROOT,
                    "%d rounds, fenced floor / floor: median %.2f (range %.2f–%.2f); store / fenced floor: median %.2f"
                            + " (range %.2f–%.2f)%n",
                    rounds,
                    fencedCost[rounds / 2],
                    fencedCost[0],
                    fencedCost[rounds - 1],
                    fenced[rounds / 2],
                    fenced[0],
                    fenced[rounds - 1]);
        }
    }

    private static long time(Runnable work) {
        long start = System.nanoTime();
        work.run();
        return System.nanoTime() - start;
    }
}

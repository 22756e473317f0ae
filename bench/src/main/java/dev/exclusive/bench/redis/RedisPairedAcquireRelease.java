package dev.exclusive.bench.redis;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
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
 * The single-thread comparison of {@link RedisAcquireReleaseBenchmark}, paired: each round runs 1,000
 * acquire+release through the raw Jedis floor ({@code SET NX PX} + the compare-and-delete {@code EVALSHA}, on a
 * pooled {@code RedisClient} as the store's), 1,000 through the public API of the Redis store (a new handle per
 * acquisition) and 1,000 through the store's SPI alone, rotating which goes first, so that load from other
 * processes on a shared machine hits them alike. Prints the ratios per round (throughput / floor throughput)
 * and their medians and ranges. Target: the public API's median at least 0.9.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.redis.RedisPairedAcquireRelease [rounds]</pre>
 */
public final class RedisPairedAcquireRelease {

    private static final int OPS = 1_000;

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
            List<Runnable> subjects = List.of(floor, store, storeSpi);
            double[] api = new double[rounds];
            double[] direct = new double[rounds];
            for (int round = -3; round < rounds; round++) { // three warm-up rounds
                long[] nanos = new long[subjects.size()];
                for (int k = 0; k < subjects.size(); k++) {
                    int subject = Math.floorMod(round + k, subjects.size());
                    nanos[subject] = time(subjects.get(subject));
                }
                if (round >= 0) {
                    api[round] = (double) nanos[0] / nanos[1];
                    direct[round] = (double) nanos[0] / nanos[2];
                    System.out.printf(
                            Locale.ROOT,
                            "round %2d: floor %,6.0f ops/s, store %,6.0f ops/s (%.2f), its SPI %,6.0f ops/s (%.2f)%n",
                            round,
                            OPS / (nanos[0] / 1e9),
                            OPS / (nanos[1] / 1e9),
                            api[round],
                            OPS / (nanos[2] / 1e9),
                            direct[round]);
                }
            }
            spi.close();
            Arrays.sort(api);
            Arrays.sort(direct);
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
        }
    }

    private static long time(Runnable work) {
        long start = System.nanoTime();
        work.run();
        return System.nanoTime() - start;
    }
}

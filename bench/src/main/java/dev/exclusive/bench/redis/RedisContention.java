package dev.exclusive.bench.redis;

import dev.exclusive.LockRegistry;
import dev.exclusive.bench.core.CoreContention;
import dev.exclusive.bench.core.Handoff;
import dev.exclusive.redis.RedisLockStore;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * 8 threads on one Redis lock with a 200 µs critical section: acquisitions per second and release-to-acquire
 * handoff (p50, p99) of the Redis store against Redisson's {@code RLock} (pub/sub wake-up too) and against a
 * waiter that polls {@code SET NX PX} every 250 ms, in one run. Targets: at least 2× Redisson's acquisitions per
 * second, handoff p99 at most 1 ms.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.redis.RedisContention [seconds] [threads]</pre>
 */
public final class RedisContention {

    private static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then " + "return redis.call('DEL', KEYS[1]) else return 0 end";

    private RedisContention() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        long work = 200;
        String url = RedisAcquireReleaseBenchmark.URL;
        String run = "bench-" + UUID.randomUUID().toString().substring(0, 8) + ":";

        Config config = new Config();
        config.useSingleServer().setAddress(url);
        RedissonClient redisson = Redisson.create(config);
        Handoff.Result reference;
        try {
            RLock rlock = redisson.getLock(run + "redisson");
            reference = Handoff.run(
                    "Redisson RLock",
                    new Handoff.Subject() {
                        @Override
                        public void acquire() {
                            rlock.lock(30, TimeUnit.SECONDS);
                        }

                        @Override
                        public void release() {
                            rlock.unlock();
                        }
                    },
                    threads,
                    work,
                    seconds);
            System.out.println(reference);
        } finally {
            redisson.shutdown();
        }

        try (LockRegistry registry = LockRegistry.builder()
                .store(
                        "redis",
                        RedisLockStore.builder()
                                .url(URI.create(url))
                                .poolSize(threads * 2)
                                .build(),
                        run)
                .build()) {
            CoreContention.report(
                    Handoff.run("redis store", CoreContention.subject(registry), threads, work, seconds), reference);
        }

        try (RedisClient jedis = RedisClient.create(URI.create(url))) {
            String sha = jedis.scriptLoad(RELEASE);
            String key = run + "polling";
            AtomicLong owners = new AtomicLong();
            ThreadLocal<String> owner = new ThreadLocal<>();
            CoreContention.report(
                    Handoff.run(
                            "SET NX + 250 ms polling",
                            new Handoff.Subject() {
                                @Override
                                public void acquire() throws InterruptedException {
                                    String mine = Long.toString(owners.incrementAndGet());
                                    while (!"OK"
                                            .equals(jedis.set(
                                                    key,
                                                    mine,
                                                    SetParams.setParams().nx().px(30_000)))) {
                                        Thread.sleep(250);
                                    }
                                    owner.set(mine);
                                }

                                @Override
                                public void release() {
                                    jedis.evalsha(sha, List.of(key), List.of(owner.get()));
                                }
                            },
                            threads,
                            work,
                            seconds),
                    reference);
        }
    }
}

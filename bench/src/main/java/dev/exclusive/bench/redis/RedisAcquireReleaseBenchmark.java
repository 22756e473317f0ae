package dev.exclusive.bench.redis;

import dev.exclusive.Lock;
import dev.exclusive.LockHolder;
import dev.exclusive.LockRegistry;
import dev.exclusive.redis.RedisLockStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * One thread acquiring and releasing one lock on Redis, uncontended: the round trips a lock costs.
 *
 * <p>{@code rawJedisFloor} is the least a correct Redis lock can do: {@code SET NX PX} to acquire, a one-line
 * {@code EVALSHA} (delete if the owner matches) to release; two round trips. {@code exclusiveLock} goes through
 * the public API with a new handle per acquisition, as application code does; {@code exclusiveStore} calls the
 * store SPI directly; {@code redissonRLock} is Redisson's {@code RLock} with a lease time (no watchdog). Target:
 * {@code exclusiveLock} at least 0.9× {@code rawJedisFloor}.
 *
 * <pre>java -jar bench/target/benchmarks.jar RedisAcquireReleaseBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RedisAcquireReleaseBenchmark {

    static final String URL = System.getProperty("redis.url", "redis://127.0.0.1:6379");
    /** The floor's release, for every Redis benchmark: delete the key if the owner matches, in one script. */
    static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

    private final String run = "bench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final LockHolder holder = new LockHolder("bench", "main", "");
    private RedisClient jedis;
    private String releaseSha;
    private RedisLockStore store;
    private LockRegistry registry;
    private RedissonClient redisson;
    private RLock rlock;
    private long owners;

    @Setup(Level.Trial)
    public void setUp() {
        jedis = RedisClient.create(URI.create(URL));
        releaseSha = jedis.scriptLoad(RELEASE);
        store = RedisLockStore.create(URI.create(URL));
        registry = LockRegistry.builder()
                .store("redis", RedisLockStore.create(URI.create(URL)))
                .build();
        Config config = new Config();
        config.useSingleServer().setAddress(URL);
        redisson = Redisson.create(config);
        rlock = redisson.getLock(run + "redisson");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        registry.close();
        store.close();
        redisson.shutdown();
        jedis.close();
    }

    @Benchmark
    public Object rawJedisFloor() {
        String key = run + "raw";
        String owner = Long.toString(++owners);
        if (!"OK".equals(jedis.set(key, owner, SetParams.setParams().nx().px(30_000)))) {
            throw new IllegalStateException("raw lock busy");
        }
        return jedis.evalsha(releaseSha, List.of(key), List.of(owner));
    }

    @Benchmark
    public boolean exclusiveLock() {
        Lock lock = registry.lock(run + "lock", Duration.ofSeconds(30));
        if (!lock.get()) {
            throw new IllegalStateException("lock busy");
        }
        return lock.release();
    }

    @Benchmark
    public boolean exclusiveStore() {
        String owner = Long.toString(++owners);
        if (!store.tryAcquire(run + "store", owner, holder, Duration.ofSeconds(30))
                .acquired()) {
            throw new IllegalStateException("store busy");
        }
        return store.release(run + "store", owner);
    }

    @Benchmark
    public boolean redissonRLock() throws InterruptedException {
        if (!rlock.tryLock(0, 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("RLock busy");
        }
        rlock.unlock();
        return true;
    }
}

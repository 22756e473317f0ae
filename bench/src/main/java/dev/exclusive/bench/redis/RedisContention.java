package dev.exclusive.bench.redis;

import dev.exclusive.LockRegistry;
import dev.exclusive.bench.core.CoreContention;
import dev.exclusive.bench.core.Handoff;
import dev.exclusive.redis.RedisLockStore;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Threads on one Redis lock with a 200 µs critical section: acquisitions per second and release-to-acquire
 * handoff (p50, p99) of the Redis store against Redisson's {@code RLock} (pub/sub wake-up too), in one run and
 * in two shapes: 8 threads in this JVM, and 2 JVMs × 4 threads (this one launches the second with the same
 * class path; the handoff crosses the JVMs through a shared memory-mapped file, both reading the host's
 * monotonic clock). Targets: at least 3× Redisson's acquisitions per second with handoff p99 at most 0.5 ms
 * (8 threads), at least 4× with p99 at most 1 ms (2 JVMs).
 *
 * <p>A critical section of 200 µs bounds throughput at 1 / (200 µs + handoff): about 5,000 per second even
 * with no handoff at all. So the 8 threads also run on the floor, the least any lock on one Redis must do per
 * handoff: this JVM's threads queue on a fair {@code ReentrantLock}, and the one it lets through takes the Redis lock
 * with {@code SET NX PX} and frees it with the compare-and-delete {@code EVALSHA} (two round trips, no wake-up
 * message: nobody waits in Redis). Neither the store nor Redisson can beat it; their ratios against it show how
 * much of the gap to a target is the machine's. Across 2 JVMs the floor's first thread in each JVM retries
 * {@code SET NX PX} every 100 µs while the other JVM holds: no wake-up could be sooner, so no lock that wakes its
 * waiters by message hands over faster (it costs Redis a command per 100 µs per JVM, which no real lock should).
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.redis.RedisContention [seconds] [threads]</pre>
 */
public final class RedisContention {

    private static final long WORK_MICROS = 200;

    private RedisContention() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer(args);
            return;
        }
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        String url = RedisAcquireReleaseBenchmark.URL;
        String run = "bench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        System.out.printf("%d threads in one JVM, %d µs critical section%n", threads, WORK_MICROS);
        Handoff.Result reference;
        try (Subject redisson = subject("redisson", url, run, threads)) {
            reference = Handoff.run("Redisson RLock", redisson, threads, WORK_MICROS, seconds);
        }
        System.out.println(reference);
        Handoff.Result floor;
        try (Subject raw = subject("floor", url, run, threads)) {
            floor = Handoff.run("floor (fair lock + SET NX)", raw, threads, WORK_MICROS, seconds);
        }
        CoreContention.report(floor, reference);
        try (Subject store = subject("store", url, run, threads)) {
            Handoff.Result result = Handoff.run("redis store", store, threads, WORK_MICROS, seconds);
            CoreContention.report(result, reference);
            CoreContention.ratios(result, floor);
        }
        int half = Math.max(1, threads / 2);
        System.out.printf("2 JVMs × %d threads, %d µs critical section%n", half, WORK_MICROS);
        Handoff.Result twoJvmReference = twoJvms("Redisson RLock", "redisson", url, run, half, seconds);
        System.out.println(twoJvmReference);
        Handoff.Result twoJvmFloor = twoJvms("floor (retry every 100 µs)", "floor", url, run, half, seconds);
        CoreContention.report(twoJvmFloor, twoJvmReference);
        Handoff.Result twoJvmStore = twoJvms("redis store", "store", url, run, half, seconds);
        CoreContention.report(twoJvmStore, twoJvmReference);
        CoreContention.ratios(twoJvmStore, twoJvmFloor);
    }

    /** Runs {@code threads} here and as many in a second JVM on one lock, for {@code seconds} after a warm-up. */
    private static Handoff.Result twoJvms(
            String label, String kind, String url, String run, int threads, double seconds) throws Exception {
        Path shared = Files.createTempFile("exclusive-handoff", ".bin");
        try (FileChannel channel = FileChannel.open(shared, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Subject subject = subject(kind, url, run, threads)) {
            MappedByteBuffer cell = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8);
            long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(4); // the peer JVM starts meanwhile
            long from = start + TimeUnit.SECONDS.toNanos(1);
            long end = from + (long) (seconds * 1e9);
            Process peer = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Dredis.url=" + url,
                            "-cp",
                            System.getProperty("java.class.path"),
                            RedisContention.class.getName(),
                            "peer",
                            kind,
                            run,
                            Integer.toString(threads),
                            shared.toString(),
                            Long.toString(start),
                            Long.toString(from),
                            Long.toString(end))
                    .inheritIO()
                    .start();
            Handoff.Samples mine = Handoff.run(subject, threads, WORK_MICROS, start, from, end, shared(cell));
            if (peer.waitFor() != 0) {
                throw new IllegalStateException("the peer JVM failed: exit " + peer.exitValue());
            }
            Handoff.Samples theirs;
            try (InputStream in = Files.newInputStream(samplesOf(shared))) {
                theirs = read(in);
            }
            return Handoff.result(label, List.of(mine, theirs), end - from);
        } finally {
            Files.deleteIfExists(shared);
            Files.deleteIfExists(samplesOf(shared));
        }
    }

    /** @return where the peer JVM writes its samples */
    private static Path samplesOf(Path shared) {
        return Path.of(shared + ".samples");
    }

    /** The second JVM: runs its threads on the shared cell and writes its samples next to it. */
    private static void peer(String[] args) throws Exception {
        String kind = args[1];
        String run = args[2];
        int threads = Integer.parseInt(args[3]);
        Path shared = Path.of(args[4]);
        long start = Long.parseLong(args[5]);
        long from = Long.parseLong(args[6]);
        long end = Long.parseLong(args[7]);
        Handoff.Samples samples;
        try (FileChannel channel = FileChannel.open(shared, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Subject subject = subject(kind, RedisAcquireReleaseBenchmark.URL, run, threads)) {
            samples = Handoff.run(
                    subject,
                    threads,
                    WORK_MICROS,
                    start,
                    from,
                    end,
                    shared(channel.map(FileChannel.MapMode.READ_WRITE, 0, 8)));
        }
        try (OutputStream out = Files.newOutputStream(samplesOf(shared))) {
            write(samples, out);
        }
        System.exit(0); // Redisson's and Jedis's threads may linger
    }

    private static Handoff.LastRelease shared(MappedByteBuffer cell) {
        return new Handoff.LastRelease() {
            @Override
            public long get() {
                return cell.getLong(0);
            }

            @Override
            public void set(long nanos) {
                cell.putLong(0, nanos);
            }
        };
    }

    /** A lock under test that closes its client. */
    private interface Subject extends Handoff.Subject, AutoCloseable {
        @Override
        void close();
    }

    /** The floor: a fair in-JVM queue in front of the raw Redis lock; see the class comment. */
    private static Subject floor(String url, String run) {
        RedisClient jedis = RedisClient.create(URI.create(url));
        String release = jedis.scriptLoad(RedisAcquireReleaseBenchmark.RELEASE);
        ReentrantLock line = new ReentrantLock(true);
        String key = run + "floor";
        String owner = UUID.randomUUID().toString();
        return new Subject() {
            @Override
            public void acquire() {
                line.lock();
                while (!"OK"
                        .equals(jedis.set(key, owner, SetParams.setParams().nx().px(30_000)))) {
                    LockSupport.parkNanos(100_000); // held by the other JVM's thread: retry soon
                }
            }

            @Override
            public void release() {
                try {
                    if (!Long.valueOf(1).equals(jedis.evalsha(release, List.of(key), List.of(owner)))) {
                        throw new IllegalStateException("the floor's lock was not held at its release");
                    }
                } finally {
                    line.unlock();
                }
            }

            @Override
            public void close() {
                jedis.close();
            }
        };
    }

    private static Subject subject(String kind, String url, String run, int threads) {
        if (kind.equals("floor")) {
            return floor(url, run);
        }
        if (kind.equals("redisson")) {
            Config config = new Config();
            config.useSingleServer().setAddress(url);
            RedissonClient redisson = Redisson.create(config);
            RLock rlock = redisson.getLock(run + "redisson");
            return new Subject() {
                @Override
                public void acquire() {
                    rlock.lock(30, TimeUnit.SECONDS);
                }

                @Override
                public void release() {
                    rlock.unlock();
                }

                @Override
                public void close() {
                    redisson.shutdown();
                }
            };
        }
        LockRegistry registry = LockRegistry.builder()
                .store(
                        "redis",
                        RedisLockStore.builder()
                                .url(URI.create(url))
                                .poolSize(threads * 2)
                                .build(),
                        run)
                .build();
        Handoff.Subject locks = CoreContention.subject(registry);
        return new Subject() {
            @Override
            public void acquire() throws Exception {
                locks.acquire();
            }

            @Override
            public void release() throws Exception {
                locks.release();
            }

            @Override
            public void close() {
                registry.close();
            }
        };
    }

    private static void write(Handoff.Samples samples, OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(samples.count());
        for (int i = 0; i < samples.count(); i++) {
            data.writeLong(samples.nanos()[i]);
        }
        data.flush();
    }

    private static Handoff.Samples read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int count = data.readInt();
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            nanos[i] = data.readLong();
        }
        return new Handoff.Samples(nanos, count);
    }
}

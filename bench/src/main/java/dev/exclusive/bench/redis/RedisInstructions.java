package dev.exclusive.bench.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.redis.RedisLockStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Instructions that Redis itself executes per acquire+release, the store against the floor ({@code SET NX PX} +
 * the compare-and-delete {@code EVALSHA}): a figure that does not depend on the machine's load, unlike
 * throughput. Starts its own {@code redis-server} under {@code valgrind --tool=callgrind} (both must be on the
 * {@code PATH}; Debian packages {@code redis-server} and {@code valgrind}) on a free loopback port, warms up
 * each subject, then zeroes callgrind's counters ({@code callgrind_control -z}), runs the operations and dumps
 * them ({@code callgrind_control -d}), once per subject; the command parsing and reply writing of each round trip
 * are counted, as they are part of what each design asks of Redis.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.redis.RedisInstructions [operations] [port]</pre>
 */
public final class RedisInstructions {

    private RedisInstructions() {}

    public static void main(String[] args) throws Exception {
        int operations = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 6395;
        Path folder = Files.createTempDirectory("exclusive-callgrind");
        Process redis = new ProcessBuilder(
                        "valgrind",
                        "--tool=callgrind",
                        "--callgrind-out-file=" + folder.resolve("callgrind.out.%p"),
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no")
                .redirectOutput(folder.resolve("redis.log").toFile())
                .redirectErrorStream(true)
                .start();
        try (Jedis jedis = connect(port);
                RedisLockStore store = RedisLockStore.create(URI.create("redis://127.0.0.1:" + port))) {
            String sha = jedis.scriptLoad(RedisAcquireReleaseBenchmark.RELEASE);
            LockHolder holder = new LockHolder("bench", "main", "");
            Runnable floor = () -> {
                for (int i = 0; i < operations; i++) {
                    String owner = "owner-" + i;
                    jedis.set("bench:raw", owner, SetParams.setParams().nx().px(30_000));
                    jedis.evalsha(sha, List.of("bench:raw"), List.of(owner));
                }
            };
            Runnable lock = () -> {
                for (int i = 0; i < operations; i++) {
                    String owner = "owner-" + i;
                    store.tryAcquire("bench:store", owner, holder, Duration.ofSeconds(30));
                    store.release("bench:store", owner);
                }
            };
            floor.run(); // warm-up: scripts loaded, keys and counters created
            lock.run();
            long pid = redis.pid();
            long floorIr = measure(pid, folder, "floor", floor);
            long storeIr = measure(pid, folder, "store", lock);
            System.out.printf(
                    Locale.ROOT,
                    "Redis instructions per acquire+release (%d each): floor %,d, store %,d: %.2f× the floor%n",
                    operations,
                    floorIr / operations,
                    storeIr / operations,
                    (double) storeIr / floorIr);
        } finally {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Jedis connect(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                Jedis jedis = new Jedis("127.0.0.1", port);
                jedis.ping();
                return jedis;
            } catch (RuntimeException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("redis-server under valgrind did not answer on port " + port, e);
                }
                TimeUnit.MILLISECONDS.sleep(200); // valgrind starts slowly; no event tells when it listens
            }
        }
    }

    /** @return the instructions Redis executed while {@code work} ran */
    private static long measure(long pid, Path folder, String label, Runnable work)
            throws IOException, InterruptedException {
        control("--zero", pid);
        work.run();
        control("--dump=" + label, pid);
        Path dump;
        try (Stream<Path> files = Files.list(folder)) {
            dump = files.filter(file -> file.getFileName().toString().startsWith("callgrind.out." + pid + "."))
                    .max((a, b) ->
                            Long.compare(a.toFile().lastModified(), b.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("no callgrind dump in " + folder));
        }
        Optional<String> totals;
        try (Stream<String> lines = Files.lines(dump)) {
            totals = lines.filter(line -> line.startsWith("summary:") || line.startsWith("totals:"))
                    .findFirst();
        }
        Files.delete(dump);
        return Long.parseLong(totals.orElseThrow().split("\\s+")[1]);
    }

    private static void control(String option, long pid) throws IOException, InterruptedException {
        Process control = new ProcessBuilder("callgrind_control", option, Long.toString(pid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (control.waitFor() != 0) {
            throw new IllegalStateException("callgrind_control " + option + " failed");
        }
    }
}

package dev.exclusive.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The threads of one JVM that contend through a failover ({@link RedisSentinelFailoverTest},
 * {@link RedisClusterFailoverTest}; {@link TwoJvmFailover} runs them in two JVMs), with one of these {@link Load}s:
 *
 * <ul>
 *   <li>{@link Load#SAFE}, {@link Load#SAFE_AND_PLAIN}: each thread, on every round, tries a lock held since before
 *       the kill (never to be granted before its ttl), takes and frees a name of its own on a store with
 *       {@code min-replicas=1}, and, with {@code SAFE_AND_PLAIN}, another on a store without (on a Cluster the
 *       promoted replica has no replica of its own, so only such a store works on the killed shard again). One more
 *       thread extends, every 100 ms, the held locks that are not on the killed master.
 *   <li>{@link Load#GRAB}: each thread takes fresh names on the killed master as fast as it can, on a store without
 *       {@code min-replicas}; once stopped, each name taken before the kill is offered to a second owner, and what
 *       the failover lost is counted (a lost name granted again with a fence not above its first holder's counts
 *       as unexpected: fences must keep growing through a failover).
 * </ul>
 *
 * Every call is timed; an unavailable store counts as expected on the killed master and as a failure anywhere else.
 *
 * <p>Also the main of the second JVM: arguments {@link Setup#args()}. It prints {@code started} once its threads
 * took and freed {@value #WARM_UP} names; after a {@code killed} line on its input it prints {@code recovered} once
 * they took and freed {@value #WARM_UP} more on the killed master; after {@code stop} it stops its threads, writes
 * its {@link #figures()} to the file named by its last argument and prints {@code stopped}.
 */
public final class FailoverContenders implements AutoCloseable {

    /** Time to connect and to answer, for every call. */
    static final Duration TIMEOUT = Duration.ofMillis(500);

    /** Time that {@code min-replicas=1} waits for the replica. */
    static final Duration REPLICA_TIMEOUT = Duration.ofMillis(500);

    /** The ttl of every lock: longer than the test, so that a held lock granted again is a second holder. */
    static final Duration TTL = Duration.ofSeconds(60);

    /** Locks held since before the kill, spread evenly over the masters. */
    static final int HELD = 6;

    /** Contending threads in each JVM. */
    static final int THREADS_PER_JVM = 4;

    /** Names taken and freed before a JVM counts as started, and after the kill before it counts as recovered. */
    static final int WARM_UP = 20;

    /** The owner of the held locks. */
    static final String FIRST = "first";

    static final LockHolder HOLDER = new LockHolder("failover-test", "main", "");

    /** What the threads do; see the class comment. */
    enum Load {
        SAFE,
        SAFE_AND_PLAIN,
        GRAB
    }

    /** Names taken and freed ({@link Load#GRAB}: taken only), in all and on the killed master. */
    final AtomicInteger churned = new AtomicInteger();

    final AtomicInteger churnedOnKilledShard = new AtomicInteger();
    private final AtomicInteger unavailable = new AtomicInteger();
    private final AtomicInteger extended = new AtomicInteger();
    private final AtomicLong slowest = new AtomicLong();
    private final Tally secondHolders = new Tally();
    private final Tally elsewhere = new Tally();
    private final Tally unexpected = new Tally();
    private final Tally lost = new Tally();
    private final AtomicInteger takenBeforeKill = new AtomicInteger();
    private final AtomicInteger takenInTheLastSecond = new AtomicInteger();
    /** With {@link Load#GRAB}: when each name was taken, by name. */
    private final Map<String, Long> taken = new ConcurrentHashMap<>();
    /** With {@link Load#GRAB}: the fence each name was taken with, by name. */
    private final Map<String, Long> takenFences = new ConcurrentHashMap<>();

    private volatile long killedNanos;
    private volatile boolean killed;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final Setup setup;
    private final int jvm;
    private final RedisLockStore safe;
    private final RedisLockStore plain;

    /**
     * Opens the stores; {@link #start()} starts the threads.
     *
     * @param jvm 0 for the test's JVM, 1 for the second: which threads (owners, names) are this JVM's
     */
    FailoverContenders(Setup setup, int jvm) {
        this.setup = setup;
        this.jvm = jvm;
        this.safe = setup.load() == Load.GRAB ? null : setup.target().store("failover-safe", 1);
        this.plain = setup.load() == Load.SAFE ? null : setup.target().store("failover-plain", 0);
    }

    void start() {
        if (setup.load() == Load.GRAB) {
            for (int t = jvm * THREADS_PER_JVM; t < (jvm + 1) * THREADS_PER_JVM; t++) {
                String owner = "jvm" + jvm + "-grabber-" + t;
                thread(owner, () -> grab(owner));
            }
            return;
        }
        List<String> held = setup.held();
        for (int t = jvm * THREADS_PER_JVM; t < (jvm + 1) * THREADS_PER_JVM; t++) {
            String owner = "jvm" + jvm + "-contender-" + t;
            String contended = held.get(t % held.size());
            String own = setup.names("own:", 2 * THREADS_PER_JVM).get(t);
            String plainOwn = setup.names("plain:", 2 * THREADS_PER_JVM).get(t);
            thread(owner, () -> contend(owner, contended, own, plainOwn));
        }
        List<String> elsewhereHeld =
                held.stream().filter(name -> !setup.onKilledShard(name)).toList();
        if (!elsewhereHeld.isEmpty()) {
            thread("jvm" + jvm + "-extender", () -> extend(elsewhereHeld));
        }
    }

    /** Marks the moment the master was killed, as this JVM learnt it. */
    void killed(long nanos) {
        killedNanos = nanos;
        killed = true;
    }

    /**
     * Stops the threads; one that does not end within 10 s is recorded as a hanging call. With {@link Load#GRAB},
     * then offers each name taken before the kill to a second owner: one it gets was lost in the failover.
     */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(10_000);
            if (thread.isAlive()) {
                unexpected.add(thread.getName() + " did not end: a call hangs");
            }
        }
        if (!killed) {
            return;
        }
        for (Map.Entry<String, Long> name : taken.entrySet()) {
            long beforeKill = killedNanos - name.getValue();
            if (beforeKill > 0) {
                takenBeforeKill.incrementAndGet();
                if (beforeKill < TimeUnit.SECONDS.toNanos(1)) {
                    takenInTheLastSecond.incrementAndGet();
                }
                timed(name.getKey(), () -> {
                    if (plain.tryAcquire(name.getKey(), "second", HOLDER, TTL) instanceof Acquisition.Acquired second) {
                        lost.add(name.getKey());
                        long first = takenFences.get(name.getKey());
                        if (second.fence() <= first) {
                            unexpected.add(name.getKey() + " lost, and granted again with fence " + second.fence()
                                    + ", not above the first holder's " + first);
                        }
                    }
                });
            }
        }
    }

    /** @return this JVM's figures so far, as {@link Figures#of} reads them */
    Properties figures() {
        Properties figures = new Properties();
        figures.setProperty("churned", churned.toString());
        figures.setProperty("churnedOnKilledShard", churnedOnKilledShard.toString());
        figures.setProperty("unavailable", unavailable.toString());
        figures.setProperty("extended", extended.toString());
        figures.setProperty("slowest", slowest.toString());
        secondHolders.into(figures, "secondHolders");
        elsewhere.into(figures, "elsewhere");
        unexpected.into(figures, "unexpected");
        lost.into(figures, "lost");
        figures.setProperty("takenBeforeKill", takenBeforeKill.toString());
        figures.setProperty("takenInTheLastSecond", takenInTheLastSecond.toString());
        return figures;
    }

    @Override
    public void close() {
        if (safe != null) {
            safe.close();
        }
        if (plain != null) {
            plain.close();
        }
    }

    private void thread(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
    }

    private void contend(String owner, String contended, String own, String plainOwn) {
        while (running.get()) {
            timed(contended, () -> {
                if (safe.tryAcquire(contended, owner, HOLDER, TTL).acquired()) {
                    secondHolders.add(contended + " by " + owner);
                }
            });
            timed(own, () -> churn(safe, own, owner));
            if (plain != null) {
                timed(plainOwn, () -> churn(plain, plainOwn, owner));
            }
        }
    }

    private void grab(String owner) {
        for (int i = 0; running.get(); i++) {
            String name = setup.prefix() + "grab:" + owner + ":" + i;
            if (setup.onKilledShard(name)) {
                timed(name, () -> {
                    if (plain.tryAcquire(name, FIRST, HOLDER, TTL) instanceof Acquisition.Acquired acquired) {
                        takenFences.put(name, acquired.fence());
                        taken.put(name, System.nanoTime());
                        churned.incrementAndGet();
                        churnedOnKilledShard.incrementAndGet();
                    }
                });
            }
        }
    }

    private void churn(RedisLockStore store, String name, String owner) {
        if (store.tryAcquire(name, owner, HOLDER, TTL).acquired()) {
            if (!store.release(name, owner)) {
                unexpected.add(name + " acquired by " + owner + " but its release was refused");
                return;
            }
            churned.incrementAndGet();
            if (setup.onKilledShard(name)) {
                churnedOnKilledShard.incrementAndGet();
            }
        }
    }

    private void extend(List<String> held) {
        while (running.get()) {
            for (String name : held) {
                timed(name, () -> {
                    if (safe.extend(name, FIRST, TTL)) {
                        extended.incrementAndGet();
                    } else {
                        elsewhere.add("extension of " + name + " refused");
                    }
                });
            }
            try {
                Thread.sleep(100); // the pace of a holder renewing its lease, not a wait for a condition
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void timed(String name, Runnable call) {
        long began = System.nanoTime();
        try {
            call.run();
        } catch (LockStoreUnavailableException e) {
            if (setup.onKilledShard(name)) {
                unavailable.incrementAndGet();
            } else {
                elsewhere.add(name + ": " + e.getMessage());
            }
        } catch (RuntimeException e) {
            unexpected.add(name + ": " + e);
        }
        slowest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), Math::max);
    }

    private static void await(AtomicInteger counter, int atLeast) throws InterruptedException {
        while (counter.get() < atLeast) {
            Thread.sleep(20);
        }
    }

    public static void main(String[] args) throws Exception {
        Setup setup = Setup.parse(args);
        Path figuresFile = Path.of(args[args.length - 1]);
        try (FailoverContenders contenders = new FailoverContenders(setup, 1)) {
            contenders.start();
            BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            await(contenders.churned, WARM_UP);
            System.out.println("started");
            for (String line = input.readLine(); line != null && !line.equals("stop"); line = input.readLine()) {
                if (line.equals("killed")) {
                    contenders.killed(System.nanoTime());
                    int atKill = contenders.churnedOnKilledShard.get();
                    Thread watcher = new Thread(() -> {
                        try {
                            await(contenders.churnedOnKilledShard, atKill + WARM_UP);
                            System.out.println("recovered");
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                    watcher.setDaemon(true);
                    watcher.start();
                }
            }
            contenders.stop();
            try (Writer out = Files.newBufferedWriter(figuresFile)) {
                contenders.figures().store(out, "failover figures of the second JVM");
            }
            System.out.println("stopped");
        }
    }

    /**
     * What both JVMs contend on: where the stores connect, the names' prefix, the masters' slot ranges (one range of
     * every slot for Sentinel) and which of them is killed, and what the threads do.
     */
    record Setup(Target target, String prefix, List<int[]> shards, int killedShard, Load load) {

        /** A Sentinel deployment: one master, every name on it; {@code load} {@link Load#SAFE} or {@link Load#GRAB}. */
        static Setup sentinel(String master, List<Integer> sentinelPorts, String prefix, Load load) {
            return new Setup(
                    new Target("sentinel", master, sentinelPorts), prefix, List.of(new int[] {0, 16383}), 0, load);
        }

        /** A Cluster: names spread over {@code masters}' slot ranges; the master of {@code killedShard} dies. */
        static Setup cluster(List<Integer> seedPorts, String prefix, List<int[]> masters, int killedShard, Load load) {
            return new Setup(Target.cluster(seedPorts), prefix, masters, killedShard, load);
        }

        /** @return the held locks' names */
        List<String> held() {
            return names("held:", HELD);
        }

        /**
         * @return {@code count} names of {@code kind}, spread evenly over the masters: the i-th on master i modulo
         *     their number
         */
        List<String> names(String kind, int count) {
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < count; i++) {
                String name = prefix + kind + i;
                int[] range = shards.get(names.size() % shards.size());
                int slot = slot(name);
                if (slot >= range[0] && slot <= range[1]) {
                    names.add(name);
                }
            }
            return names;
        }

        boolean onKilledShard(String name) {
            int slot = slot(name);
            return slot >= shards.get(killedShard)[0] && slot <= shards.get(killedShard)[1];
        }

        /** @return the arguments that {@link #parse} reads back, for the second JVM */
        List<String> args() {
            return List.of(
                    target.kind(),
                    target.master(),
                    target.ports().stream().map(String::valueOf).collect(Collectors.joining(",")),
                    prefix,
                    shards.stream().map(range -> range[0] + "-" + range[1]).collect(Collectors.joining(",")),
                    Integer.toString(killedShard),
                    load.name());
        }

        static Setup parse(String[] args) {
            return new Setup(
                    new Target(
                            args[0],
                            args[1],
                            Arrays.stream(args[2].split(","))
                                    .map(Integer::valueOf)
                                    .toList()),
                    args[3],
                    Arrays.stream(args[4].split(","))
                            .map(range -> Arrays.stream(range.split("-"))
                                    .mapToInt(Integer::parseInt)
                                    .toArray())
                            .toList(),
                    Integer.parseInt(args[5]),
                    Load.valueOf(args[6]));
        }

        private static int slot(String name) {
            return JedisClusterCRC16.getSlot(RedisKeys.lockKey(name));
        }
    }

    /**
     * Where the stores connect: {@code kind} {@code sentinel} (Sentinels on {@code ports} watching {@code master})
     * or {@code cluster} ({@code ports} are seed nodes).
     */
    record Target(String kind, String master, List<Integer> ports) {

        static Target cluster(List<Integer> seedPorts) {
            return new Target("cluster", "", seedPorts);
        }

        /** @return a store with the tests' timeouts, whose acquisitions and extensions wait for {@code minReplicas} */
        RedisLockStore store(String storeName, int minReplicas) {
            List<HostAndPort> nodes = ports.stream()
                    .map(port -> new HostAndPort(RedisServers.HOST, port))
                    .toList();
            RedisLockStoreBuilder builder = RedisLockStore.builder();
            if (kind.equals("sentinel")) {
                builder.sentinel(master, nodes);
            } else {
                builder.clusterNodes(nodes);
            }
            return builder.storeName(storeName)
                    .connectTimeout(TIMEOUT)
                    .socketTimeout(TIMEOUT)
                    .minReplicas(minReplicas)
                    .replicaTimeout(REPLICA_TIMEOUT)
                    .fenceRetention(Duration.ofMinutes(5))
                    .build();
        }
    }

    /** A count of things that must not happen, with the first few for the failure message. */
    private static final class Tally {
        private final AtomicInteger count = new AtomicInteger();
        private final List<String> first = new CopyOnWriteArrayList<>();

        void add(String what) {
            if (count.incrementAndGet() <= 3) {
                first.add(what);
            }
        }

        void into(Properties figures, String key) {
            figures.setProperty(key, count.toString());
            figures.setProperty(key + ".first", String.join(" | ", first));
        }
    }

    /** One JVM's figures, as {@link #figures()} wrote them. */
    record Figures(
            String jvm,
            int churned,
            int churnedOnKilledShard,
            int unavailable,
            int extended,
            long slowest,
            int secondHolders,
            int elsewhere,
            int unexpected,
            String firstProblems,
            int takenBeforeKill,
            int takenInTheLastSecond,
            int lost,
            String firstLost) {

        static Figures of(String jvm, Properties figures) {
            return new Figures(
                    jvm,
                    Integer.parseInt(figures.getProperty("churned")),
                    Integer.parseInt(figures.getProperty("churnedOnKilledShard")),
                    Integer.parseInt(figures.getProperty("unavailable")),
                    Integer.parseInt(figures.getProperty("extended")),
                    Long.parseLong(figures.getProperty("slowest")),
                    Integer.parseInt(figures.getProperty("secondHolders")),
                    Integer.parseInt(figures.getProperty("elsewhere")),
                    Integer.parseInt(figures.getProperty("unexpected")),
                    "second holders: [" + figures.getProperty("secondHolders.first") + "]; elsewhere: ["
                            + figures.getProperty("elsewhere.first") + "]; unexpected: ["
                            + figures.getProperty("unexpected.first") + "]",
                    Integer.parseInt(figures.getProperty("takenBeforeKill")),
                    Integer.parseInt(figures.getProperty("takenInTheLastSecond")),
                    Integer.parseInt(figures.getProperty("lost")),
                    figures.getProperty("lost.first"));
        }

        static Figures read(String jvm, Path file) throws IOException {
            Properties figures = new Properties();
            try (var in = Files.newBufferedReader(file)) {
                figures.load(in);
            }
            return of(jvm, figures);
        }

        /** @return what a failover without {@code min-replicas} lost, with {@link Load#GRAB} */
        String losses() {
            return jvm + ": " + takenBeforeKill + " locks taken on the killed master before the kill ("
                    + takenInTheLastSecond + " in its last second), " + lost
                    + " of them granted to a second owner after"
                    + " the failover [" + firstLost + "]; " + unavailable + " calls unavailable; slowest call "
                    + slowest
                    + " ms";
        }

        @Override
        public String toString() {
            return jvm + ": slowest call " + slowest + " ms, " + unavailable
                    + " calls unavailable on the killed master, "
                    + elsewhere + " failed elsewhere, " + extended + " extensions elsewhere, " + churned
                    + " names taken and freed (" + churnedOnKilledShard + " on the killed master), " + secondHolders
                    + " second holders, " + unexpected + " unexpected";
        }
    }
}

package dev.exclusive.bench.admin;

import com.sun.management.OperatingSystemMXBean;
import dev.exclusive.LockHolder;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.admin.LockConsoleService;
import dev.exclusive.admin.LockFilter;
import dev.exclusive.admin.LockSnapshot;
import dev.exclusive.admin.LockSort;
import dev.exclusive.admin.internal.ConsoleCaller;
import dev.exclusive.admin.internal.ConsoleSettings;
import dev.exclusive.redis.RedisLockStore;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.WaitPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The server-side cost of 20 open consoles on a Redis store holding 10,000 live locks, each console refreshing once
 * per second as the view does (a read, its first page of 50 rows, the store tiles and the charts' activity), their
 * refreshes spread over the second.
 *
 * <p>Three loads run in alternating order in every round, {@code seconds} each after a warm-up of the same length:
 * <ul>
 *   <li>{@code floor}: one {@code liveLocks("", 10_000)} per second, nothing else: the least any console showing
 *       every lock once a second must do;
 *   <li>{@code shared}: the 20 consoles on one {@link LockConsoleService}, as on a server (one application-scoped
 *       service);
 *   <li>{@code per-console}: the 20 consoles each on its own service, which is what every console cost before the
 *       listings were shared: each scans the store on each of its refreshes.
 * </ul>
 * For each it reports the store listings per second (counted on the real store), this JVM's CPU time per second
 * and the Redis server's CPU time per second ({@code INFO cpu}), and the ratios of {@code shared} and
 * {@code per-console} to {@code floor} in the same round.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.exclusive.bench.admin.SharedSnapshotLoad 10 3</pre>
 */
public final class SharedSnapshotLoad {

    private static final String URL = System.getProperty("redis.url", "redis://127.0.0.1:6379");
    private static final int LOCKS = 10_000;
    private static final int CONSOLES = 20;
    private static final Duration REFRESH = ConsoleSettings.DEFAULTS.refresh();

    private SharedSnapshotLoad() {}

    /** What one load cost per second. */
    record Cost(String load, double listingsPerSecond, double jvmCpuMsPerSecond, double redisCpuMsPerSecond) {}

    /**
     * @param args the seconds each load is measured (default 10) and the rounds (default 3)
     * @throws Exception if Redis cannot be reached or a lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        URI url = URI.create(URL);
        CountingStore store = new CountingStore(RedisLockStore.create(url));
        LockStatistics statistics = new LockStatistics();
        String prefix = "bench-shared-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        try (LockRegistry registry = LockRegistry.builder()
                .store("redis", store, prefix)
                .instanceName("bench")
                .listener(statistics)
                .build()) {
            for (int i = 0; i < LOCKS; i++) {
                if (!registry.lock(String.format("job:%05d", i), Duration.ofMinutes(30))
                        .purpose("Bench#hold")
                        .get()) {
                    throw new IllegalStateException("could not take lock " + i);
                }
            }
            ConsoleSettings defaults = ConsoleSettings.DEFAULTS;
            ConsoleSettings settings = new ConsoleSettings(defaults.route(), defaults.role(), REFRESH, LOCKS);
            IntFunction<LockConsoleService> newService =
                    i -> new LockConsoleService(registry, statistics, settings, ConsoleCaller.nobody());
            System.out.printf(
                    "%d live Redis locks, %d consoles refreshing every %d ms, %d s per load, %d rounds%n",
                    LOCKS, CONSOLES, REFRESH.toMillis(), seconds, rounds);
            for (int round = 1; round <= rounds; round++) {
                List<String> names = round % 2 == 1
                        ? List.of("floor", "shared", "per-console")
                        : List.of("per-console", "shared", "floor");
                List<Cost> costs = new ArrayList<>();
                for (String load : names) {
                    costs.add(measure(
                            load,
                            store,
                            url,
                            seconds,
                            switch (load) {
                                case "floor" ->
                                    List.<Runnable>of(() ->
                                            check(registry.liveLocks("", LOCKS).size()));
                                case "shared" -> {
                                    LockConsoleService server = newService.apply(0);
                                    yield consoles(i -> server);
                                }
                                default -> consoles(newService);
                            }));
                }
                Cost floor = costs.stream()
                        .filter(c -> c.load().equals("floor"))
                        .findFirst()
                        .orElseThrow();
                System.out.printf("round %d (load %s)%n", round, loadAverage());
                for (Cost cost : costs) {
                    System.out.printf(
                            "  %-12s listings/s %6.2f (%5.2fx)  JVM CPU ms/s %7.1f (%5.2fx)  Redis CPU ms/s %7.1f"
                                    + " (%5.2fx)%n",
                            cost.load(),
                            cost.listingsPerSecond(),
                            cost.listingsPerSecond() / floor.listingsPerSecond(),
                            cost.jvmCpuMsPerSecond(),
                            cost.jvmCpuMsPerSecond() / floor.jvmCpuMsPerSecond(),
                            cost.redisCpuMsPerSecond(),
                            cost.redisCpuMsPerSecond() / floor.redisCpuMsPerSecond());
                }
            }
            for (LockInfo lock : registry.liveLocks("", LOCKS)) {
                registry.forceRelease(lock);
            }
        }
    }

    private static List<Runnable> consoles(IntFunction<LockConsoleService> service) {
        List<Runnable> consoles = new ArrayList<>();
        for (int i = 0; i < CONSOLES; i++) {
            LockConsoleService console = service.apply(i);
            consoles.add(() -> {
                LockSnapshot snapshot = console.read(LockFilter.all());
                check(snapshot.size());
                snapshot.page(LockSort.DEFAULT, 0, 50);
                // the tiles count every store's locks from the same shared listing; both are shared per interval
                check(console.tiles().get(0).liveLocks());
                console.activity();
            });
        }
        return consoles;
    }

    private static void check(int listed) {
        if (listed != LOCKS) {
            throw new IllegalStateException("expected " + LOCKS + " live locks, read " + listed);
        }
    }

    /** Runs each refresher once per interval, spread over the interval; warms up, then measures. */
    private static Cost measure(String load, CountingStore store, URI url, int seconds, List<Runnable> refreshers)
            throws InterruptedException, IOException {
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(refreshers.size());
        AtomicLong failures = new AtomicLong();
        try {
            long step = REFRESH.toNanos() / refreshers.size();
            for (int i = 0; i < refreshers.size(); i++) {
                Runnable refresher = refreshers.get(i);
                timer.scheduleAtFixedRate(
                        () -> {
                            try {
                                refresher.run();
                            } catch (RuntimeException e) {
                                failures.incrementAndGet();
                            }
                        },
                        i * step,
                        REFRESH.toNanos(),
                        TimeUnit.NANOSECONDS);
            }
            TimeUnit.SECONDS.sleep(seconds); // warm-up: a fixed window, not a wait for a condition
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long listings = store.lists();
            long jvmCpu = os.getProcessCpuTime();
            double redisCpu = redisCpuSeconds(url);
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds); // the measured window
            double elapsed = (System.nanoTime() - start) / 1e9;
            Cost cost = new Cost(
                    load,
                    (store.lists() - listings) / elapsed,
                    (os.getProcessCpuTime() - jvmCpu) / 1e6 / elapsed,
                    (redisCpuSeconds(url) - redisCpu) * 1000 / elapsed);
            if (failures.get() > 0) {
                throw new IllegalStateException(load + ": " + failures.get() + " refreshes failed");
            }
            return cost;
        } finally {
            timer.shutdownNow();
            if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(load + ": the refreshers did not stop within 30 s");
            }
        }
    }

    /** @return the Redis server's CPU time so far (user + system, its main thread and children), in seconds */
    private static double redisCpuSeconds(URI url) throws IOException {
        try (Socket socket = new Socket(url.getHost(), url.getPort() < 0 ? 6379 : url.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write("*2\r\n$4\r\nINFO\r\n$3\r\ncpu\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder header = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("Redis closed the connection before answering INFO cpu");
                }
                header.append((char) c);
            }
            int length = Integer.parseInt(header.substring(1).strip());
            String info = new String(in.readNBytes(length), StandardCharsets.US_ASCII);
            double total = 0;
            for (String line : info.split("\r\n")) {
                if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    total += Double.parseDouble(line.substring(line.indexOf(':') + 1));
                }
            }
            return total;
        }
    }

    private static String loadAverage() {
        return String.format(
                "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** The real Redis store, counting its listings. */
    private static final class CountingStore implements LockStore {

        private final LockStore delegate;
        private final AtomicLong lists = new AtomicLong();

        CountingStore(LockStore delegate) {
            this.delegate = delegate;
        }

        long lists() {
            return lists.get();
        }

        @Override
        public List<LockEntry> list(String prefix, int limit) {
            lists.incrementAndGet();
            return delegate.list(prefix, limit);
        }

        @Override
        public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
            return delegate.tryAcquire(name, owner, holder, ttl);
        }

        @Override
        public boolean release(String name, String owner) {
            return delegate.release(name, owner);
        }

        @Override
        public boolean release(String name, String owner, Duration minHold) {
            return delegate.release(name, owner, minHold);
        }

        @Override
        public boolean forceRelease(String name) {
            return delegate.forceRelease(name);
        }

        @Override
        public boolean extend(String name, String owner, Duration ttl) {
            return delegate.extend(name, owner, ttl);
        }

        @Override
        public Optional<LockEntry> inspect(String name) {
            return delegate.inspect(name);
        }

        @Override
        public WaitPolicy waitPolicy() {
            return delegate.waitPolicy();
        }

        @Override
        public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
            delegate.awaitRelease(name, maxWait);
        }

        @Override
        public void ping() {
            delegate.ping();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}

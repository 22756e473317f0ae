package dev.exclusive.redis;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;

/**
 * Threads of {@link RedisSentinelFailoverTest} that contend through a failover: each tries a lock held since
 * before the kill (never to be granted before its ttl), then takes and frees a name of its own, timing every
 * call. Also the main of the test's second JVM: arguments Sentinel ports ({@code port,port,...}), master name,
 * name prefix, threads. It prints {@code started} once its threads took and freed 20 names; after a
 * {@code killed} line on its input it prints {@code recovered} once they took and freed 20 more; after {@code stop} it prints
 * {@code churnedAtKill=<n> } and {@link #summary()}.
 */
public final class FailoverContenders {

    /** Time to connect and to answer, for every call. */
    static final Duration TIMEOUT = Duration.ofMillis(500);

    /** Time that {@code min-replicas=1} waits for the replica. */
    static final Duration REPLICA_TIMEOUT = Duration.ofMillis(500);

    /** Locks held since before the kill, named {@code <prefix>held:0 ...}. */
    static final int HELD = 4;

    /** The ttl of every lock: longer than the test, so that a held lock granted again is a second holder. */
    static final Duration TTL = Duration.ofSeconds(60);

    private static final LockHolder HOLDER = new LockHolder("failover-test", "main", "");

    final AtomicInteger churned = new AtomicInteger();
    final AtomicInteger unavailable = new AtomicInteger();
    final AtomicLong slowest = new AtomicLong();
    final List<String> secondHolders = Collections.synchronizedList(new ArrayList<>());
    final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final RedisLockStore store;
    private final String prefix;
    private final String owners;

    /**
     * @param owners what the threads' owner ids and own names start with, different in each JVM
     */
    FailoverContenders(RedisLockStore store, String prefix, String owners) {
        this.store = store;
        this.prefix = prefix;
        this.owners = owners;
    }

    /** @return a store through the Sentinels with the test's timeouts and {@code min-replicas=1} */
    static RedisLockStore store(List<Integer> sentinelPorts, String master) {
        return RedisLockStore.builder()
                .sentinel(
                        master,
                        sentinelPorts.stream()
                                .map(port -> new HostAndPort(RedisServers.HOST, port))
                                .toList())
                .storeName("failover")
                .connectTimeout(TIMEOUT)
                .socketTimeout(TIMEOUT)
                .minReplicas(1)
                .replicaTimeout(REPLICA_TIMEOUT)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }

    void start(int count) {
        for (int t = 0; t < count; t++) {
            String owner = owners + t;
            String held = prefix + "held:" + (t % HELD);
            String own = prefix + "own:" + owner;
            Thread thread = new Thread(() -> contend(owner, held, own), owner);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(10_000);
            if (thread.isAlive()) {
                unexpected.add(new AssertionError(thread.getName() + " did not end: a call hangs"));
            }
        }
    }

    /** @return the figures, one line: {@code churned=<n> unavailable=<n> slowest=<ms> second=<n> unexpected=<n>} */
    String summary() {
        return "churned=" + churned + " unavailable=" + unavailable + " slowest=" + slowest + " second="
                + secondHolders.size() + " unexpected=" + unexpected.size() + " " + secondHolders + " " + unexpected;
    }

    private void contend(String owner, String held, String own) {
        while (running.get()) {
            timed(() -> {
                if (store.tryAcquire(held, owner, HOLDER, TTL).acquired()) {
                    secondHolders.add(held + " by " + owner);
                }
            });
            timed(() -> {
                if (store.tryAcquire(own, owner, HOLDER, TTL).acquired() && store.release(own, owner)) {
                    churned.incrementAndGet();
                }
            });
        }
    }

    private void timed(Runnable call) {
        long began = System.nanoTime();
        try {
            call.run();
        } catch (LockStoreUnavailableException e) {
            unavailable.incrementAndGet();
        } catch (RuntimeException e) {
            unexpected.add(e);
        }
        slowest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), Math::max);
    }

    private static void awaitChurned(FailoverContenders contenders, int names) throws InterruptedException {
        while (contenders.churned.get() < names) {
            Thread.sleep(20);
        }
    }

    public static void main(String[] args) throws Exception {
        List<Integer> sentinels =
                Arrays.stream(args[0].split(",")).map(Integer::valueOf).toList();
        try (RedisLockStore store = store(sentinels, args[1])) {
            FailoverContenders contenders = new FailoverContenders(store, args[2], "other-jvm-");
            contenders.start(Integer.parseInt(args[3]));
            BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            awaitChurned(contenders, 20);
            System.out.println("started");
            int churnedAtKill = -1;
            for (String line = input.readLine(); line != null && !line.equals("stop"); line = input.readLine()) {
                if (line.equals("killed")) {
                    int atKill = contenders.churned.get();
                    churnedAtKill = atKill;
                    Thread watcher = new Thread(() -> {
                        try {
                            awaitChurned(contenders, atKill + 20);
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
            System.out.println("churnedAtKill=" + churnedAtKill + " " + contenders.summary());
        }
    }
}

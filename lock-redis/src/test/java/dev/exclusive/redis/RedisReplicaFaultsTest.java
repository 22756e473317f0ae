package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.spi.Acquisition;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Review tests: a master on 6500 and its replica on 6501, linked through a {@link FaultyProxy} that can cut the
 * replica off.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisReplicaFaultsTest {

    private static final int MASTER_PORT = 6500;
    private static final int REPLICA_PORT = 6501;
    private static final LockHolder HOLDER = new LockHolder("replica-faults", "main", "");

    private Path folder;
    private FaultyProxy link;

    @BeforeEach
    void startMasterAndReplica() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-replica-faults");
        RedisServers.start(MASTER_PORT, folder);
        link = FaultyProxy.start(MASTER_PORT);
        RedisServers.start(REPLICA_PORT, folder, "--replicaof", RedisServers.HOST, Integer.toString(link.port()));
        RedisServers.awaitTrue(this::replicaInSync, Duration.ofSeconds(20), "the replica to sync");
    }

    @AfterEach
    void stop() throws IOException, InterruptedException {
        if (link != null) {
            link.close();
        }
        RedisServers.stop(REPLICA_PORT);
        RedisServers.stop(MASTER_PORT);
        RedisServers.deleteFolder(folder);
    }

    /**
     * The failover the javadoc tells users to guard against with fences: the promoted replica missed the last
     * acquisitions of a name whose counter it does have (an older value). The next fence it grants must still be
     * above every fence the old master granted.
     */
    @Test
    void aPromotedReplicaThatMissedTheLastAcquisitionsStillGrantsAGreaterFence() throws Exception {
        String name = "fenced";
        long last = 0;
        try (RedisLockStore master = store(MASTER_PORT, 0, Duration.ofMillis(50), Duration.ofSeconds(2));
                Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, REPLICA_PORT));
                Jedis primary = new Jedis(new HostAndPort(RedisServers.HOST, MASTER_PORT))) {
            for (int i = 0; i < 3; i++) {
                last = fence(master.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)));
                assertTrue(master.release(name, "a"));
            }
            RedisServers.awaitTrue(
                    () -> Objects.equals(replica.get(RedisKeys.fenceKey(name)), primary.get(RedisKeys.fenceKey(name)))
                            && !replica.exists(RedisKeys.lockKey(name)),
                    Duration.ofSeconds(10),
                    "the replica to have the counter");
            link.stall(); // the replica misses what follows
            for (int i = 0; i < 3; i++) {
                last = fence(master.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)));
                assertTrue(master.release(name, "a"));
            }
            last = fence(master.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30))); // held at the failover
            replica.replicaofNoOne(); // promoted
        }
        try (RedisLockStore promoted = store(REPLICA_PORT, 0, Duration.ofMillis(50), Duration.ofSeconds(2))) {
            long next = fence(promoted.tryAcquire(name, "b", HOLDER, Duration.ofSeconds(30)));
            assertTrue(next > last, "after the failover fence " + next + " was granted to b; a holds fence " + last);
        }
    }

    /**
     * min-replicas with a replica-timeout longer than the socket timeout (both accepted by the builder): WAIT's
     * reply never arrives in time, the read times out, and the acquisition is not released again.
     */
    @Test
    void anAcquisitionWhoseWaitOutlastsTheSocketTimeoutIsReleasedAgain() throws Exception {
        String name = "slow-replica";
        link.stall();
        try (RedisLockStore strict = store(MASTER_PORT, 1, Duration.ofSeconds(3), Duration.ofMillis(500));
                RedisLockStore plain = store(MASTER_PORT, 0, Duration.ofMillis(50), Duration.ofSeconds(2))) {
            LockStoreUnavailableException failure = assertThrows(
                    LockStoreUnavailableException.class,
                    () -> strict.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30)));
            assertTrue(
                    plain.inspect(name).isEmpty(),
                    "the failed acquisition was not taken back (" + failure.getMessage() + "); lock: "
                            + plain.inspect(name));
        } finally {
            link.resume();
        }
    }

    /**
     * A waiter of the same store instance is woken by a release through this store; the release that undoes an
     * acquisition too few replicas confirmed is one, but wakes nobody: the script publishes only for other
     * instances, and the store does not signal its own waiters.
     */
    @Test
    void takingBackAnUnconfirmedAcquisitionWakesTheStoresOwnWaiters() throws Exception {
        String name = "undo-wakes";
        try (RedisLockStore strict = store(MASTER_PORT, 1, Duration.ofMillis(1_500), Duration.ofSeconds(2))) {
            strict.awaitRelease("warm-up", Duration.ofMillis(10)); // start the subscriber first
            assertTrue(strict.subscriber().awaitListening(10, TimeUnit.SECONDS));
            link.stall();
            CompletableFuture<Void> acquiring = CompletableFuture.runAsync(() -> assertThrows(
                    LockStoreUnavailableException.class,
                    () -> strict.tryAcquire(name, "a", HOLDER, Duration.ofSeconds(30))));
            RedisServers.awaitTrue(() -> strict.inspect(name).isPresent(), Duration.ofSeconds(5), "the lease");
            long began = System.nanoTime();
            strict.awaitRelease(name, Duration.ofSeconds(10)); // recorded on the lease, parked
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            acquiring.get(10, TimeUnit.SECONDS);
            assertTrue(strict.inspect(name).isEmpty());
            assertTrue(waited < 4_000, "the waiter slept " + waited + " ms after the lease was taken back at ~1.5 s");
        } finally {
            link.resume();
        }
    }

    private static long fence(Acquisition acquisition) {
        assertTrue(acquisition.acquired(), "acquired: " + acquisition);
        return ((Acquisition.Acquired) acquisition).fence();
    }

    private static RedisLockStore store(int port, int minReplicas, Duration replicaTimeout, Duration socketTimeout) {
        return RedisLockStore.builder()
                .url(URI.create("redis://" + RedisServers.HOST + ":" + port))
                .storeName("replica-faults")
                .minReplicas(minReplicas)
                .replicaTimeout(replicaTimeout)
                .socketTimeout(socketTimeout)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }

    private boolean replicaInSync() {
        try (Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, REPLICA_PORT))) {
            return replica.info("replication").contains("master_link_status:up");
        } catch (RuntimeException e) {
            return false;
        }
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * {@code min-replicas}: a master on port 7150 and its replica on 7151, started by the test, the replica linked to
 * its master through a {@link FaultyProxy} that can cut it off. An acquisition or extension answers only once
 * the replica has the write, and fails as unavailable when too few replicas confirm in time, leaving the lock
 * free.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisReplicationTest {

    private static final int MASTER_PORT = 7150;
    private static final int REPLICA_PORT = 7151;
    private static final LockHolder HOLDER = new LockHolder("replication-test", "main", "");
    private static Path folder;
    private static FaultyProxy replicationLink;

    @BeforeAll
    static void startMasterAndReplica() throws IOException, InterruptedException {
        RedisServers.requireRedisBinaries();
        folder = Files.createTempDirectory("exclusive-redis-replication");
        RedisServers.start(MASTER_PORT, folder);
        replicationLink = FaultyProxy.start(MASTER_PORT);
        RedisServers.start(
                REPLICA_PORT, folder, "--replicaof", RedisServers.HOST, Integer.toString(replicationLink.port()));
        RedisServers.awaitTrue(
                RedisReplicationTest::replicaInSync, Duration.ofSeconds(20), "the replica to sync with its master");
    }

    @AfterAll
    static void stopBoth() throws IOException, InterruptedException {
        RedisServers.stop(REPLICA_PORT);
        RedisServers.stop(MASTER_PORT);
        if (replicationLink != null) {
            replicationLink.close();
        }
        RedisServers.deleteFolder(folder);
    }

    @Test
    void anAcquisitionAnswersOnlyOnceTheReplicaHasIt() {
        String name = RedisServers.uniquePrefix("replicated") + "lock";
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        try (RedisLockStore store = store(1, Duration.ofSeconds(5));
                Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, REPLICA_PORT))) {
            replicationLink.stall(); // the replica hears nothing, and acknowledges nothing, for 600 ms
            later.schedule(replicationLink::resume, 600, TimeUnit.MILLISECONDS);
            long began = System.nanoTime();
            assertTrue(store.tryAcquire(name, "owner", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            assertTrue(replica.exists(RedisKeys.lockKey(name)), "the replica has the lease when acquire answers");
            assertTrue(
                    tookMillis >= 300, "acquire waited for the paused replica: answered after " + tookMillis + " ms");
            assertTrue(store.extend(name, "owner", Duration.ofSeconds(60)));
            assertTrue(replica.pttl(RedisKeys.lockKey(name)) > 40_000, "the replica has the extended lease");
            assertTrue(store.release(name, "owner"));
        } finally {
            later.shutdownNow();
            replicationLink.resume();
        }
    }

    @Test
    void tooFewReplicasFailTheAcquisitionAsUnavailableAndLeaveTheLockFree() {
        String name = RedisServers.uniquePrefix("unreplicated") + "lock";
        replicationLink.stall(); // the one replica is cut off
        try (RedisLockStore store = store(1, Duration.ofMillis(50))) {
            long began = System.nanoTime();
            LockStoreUnavailableException failure = assertThrows(
                    LockStoreUnavailableException.class,
                    () -> store.tryAcquire(name, "owner", HOLDER, Duration.ofSeconds(30)));
            assertEquals(name, failure.lockName().orElseThrow());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            assertTrue(failure.getMessage().contains("only 0 of the 1 replicas"), failure.getMessage());
            assertTrue(tookMillis < 2_000, "failed within the replica timeout and a round trip: " + tookMillis + " ms");
            assertFalse(store.inspect(name).isPresent(), "the acquisition was taken back");
        } finally {
            replicationLink.resume();
        }
    }

    @Test
    void tooFewReplicasFailAnExtensionAsUnavailable() {
        String name = RedisServers.uniquePrefix("unreplicated") + "extended";
        try (RedisLockStore plain = store(0, Duration.ofMillis(50));
                RedisLockStore strict = store(2, Duration.ofMillis(50))) {
            assertTrue(plain.tryAcquire(name, "owner", HOLDER, Duration.ofSeconds(30))
                    .acquired());
            assertThrows(
                    LockStoreUnavailableException.class, () -> strict.extend(name, "owner", Duration.ofSeconds(60)));
            assertTrue(plain.release(name, "owner"));
        }
    }

    private static RedisLockStore store(int minReplicas, Duration replicaTimeout) {
        return RedisLockStore.builder()
                .url(URI.create("redis://" + RedisServers.HOST + ":" + MASTER_PORT))
                .storeName("replicated")
                .minReplicas(minReplicas)
                .replicaTimeout(replicaTimeout)
                .fenceRetention(Duration.ofMinutes(5))
                .build();
    }

    private static boolean replicaInSync() {
        try (Jedis replica = new Jedis(new HostAndPort(RedisServers.HOST, REPLICA_PORT))) {
            return replica.info("replication").contains("master_link_status:up");
        } catch (RuntimeException e) {
            return false;
        }
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.util.Pool;

/**
 * The release subscriber's connection never goes back to a pool for commands: a connection that was subscribed may
 * still carry a reply nobody read (a watchdog probe answered after the unsubscription), and the next command borrowed
 * from the pool would take that reply for its own answer. Seen once as a worker's acquire failing
 * with "PONG" where it expected a number.
 */
class RedisSubscriberConnectionTest {

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @Test
    void theSubscribedConnectionOfAnApplicationsClientIsDestroyedNotPooledWhenTheStoreCloses() throws Exception {
        try (RedisClient client = RedisClient.builder()
                .hostAndPort(new HostAndPort(RedisServers.HOST, 6379))
                .build()) {
            Pool<Connection> pool = client.getPool();
            RedisLockStore store = RedisLockStore.using(client, "subscriber-connection");
            Connection subscribed;
            try {
                store.awaitRelease(RedisServers.uniquePrefix("subscribed") + "name", Duration.ofMillis(50));
                assertTrue(store.subscriber().awaitListening(10, TimeUnit.SECONDS), "the subscriber listens");
                assertEquals(1, pool.getNumActive(), "the subscriber holds one connection of the client's pool");
                subscribed = store.subscriber().connection();
            } finally {
                store.close();
            }
            assertEquals(0, pool.getNumActive(), "the subscriber let its connection go");
            assertFalse(subscribed.isConnected(), "the subscribed connection was closed, not pooled for commands");
            assertEquals("PONG", client.ping(), "the client still works");
        }
    }
}

package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;

/**
 * The release subscriber's watchdog probes a silent subscription once a second while threads wait. A probe must never
 * end the subscription it checks. Jedis 8 speaks RESP3, where a subscribed connection's {@code PING} is answered with a
 * plain {@code PONG} that Jedis matches to a handler it queues only after the {@code PING} has gone out: when the
 * subscriber thread read the answer first, Jedis threw "Unexpected message : PONG", and the subscription went down
 * with a warning while waiters fell back to polling. Seen once in a {@code RedisContention} run on a busy machine; here
 * the probes come back to back while other threads keep both cores busy, so that the probing thread is often
 * descheduled right after its write.
 */
class RedisSubscriberProbeTest {

    private static final int PROBES = 1_000;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @Test
    void probesOfABusyMachineNeverEndTheSubscription() throws Exception {
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> spinners = List.of(spinner(busy), spinner(busy));
        List<String> warnings;
        try (SubscriberWarnings recorded = SubscriberWarnings.record();
                RedisLockStore store = RedisLockStore.create(URI.create(RedisServers.SHARED_URL))) {
            store.awaitRelease(RedisServers.uniquePrefix("probe") + "name", Duration.ofMillis(50));
            ReleaseSubscriber subscriber = store.subscriber();
            assertTrue(subscriber.awaitListening(10, TimeUnit.SECONDS), "the subscriber listens");
            Connection subscribed = subscriber.connection();
            spinners.forEach(Thread::start);
            for (int i = 0; i < PROBES && subscriber.connection() == subscribed; i++) {
                subscriber.probeNow();
                Thread.sleep(1); // the answer comes back and is read while this thread sleeps
            }
            assertSame(subscribed, subscriber.connection(), "the subscription kept its connection");
            assertTrue(subscriber.listening(), "the subscriber still listens");
            warnings = recorded.messages();
        } finally {
            busy.set(false);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
        assertEquals(List.of(), warnings, "no warning from the subscriber");
    }

    /** A thread that keeps a core busy until {@code busy} turns false. */
    private static Thread spinner(AtomicBoolean busy) {
        Thread spinner = new Thread(() -> {
            long spins = 0;
            while (busy.get()) {
                spins++;
            }
            if (spins < 0) {
                throw new AssertionError(); // keeps the loop from being optimized away
            }
        });
        spinner.setDaemon(true);
        return spinner;
    }
}

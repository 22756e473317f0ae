package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** Two JVMs contend on one lock through the shared Redis and update a counter with GET and SET under it. */
class CrossProcessTest {

    private static final int ROUNDS = 300;

    @TempDir
    Path folder;

    @BeforeAll
    static void redisAnswers() {
        RedisServers.requireSharedRedis();
    }

    @Test
    void twoProcessesLoseNoUpdate() throws IOException, InterruptedException {
        String run = "cross-process-" + UUID.randomUUID().toString().substring(0, 8);
        String counterKey = run + ":counter";
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            workers.add(RedisServers.startJvm(
                    CounterWorker.class,
                    folder.resolve("worker-" + i + ".log"),
                    RedisServers.SHARED_URL,
                    run + ":lock",
                    counterKey,
                    Integer.toString(ROUNDS)));
        }
        try {
            for (int i = 0; i < workers.size(); i++) {
                Process worker = workers.get(i);
                assertTrue(worker.waitFor(100, TimeUnit.SECONDS), "worker " + i + " did not finish");
                String log = Files.readString(folder.resolve("worker-" + i + ".log"));
                assertEquals(0, worker.exitValue(), "worker " + i + " failed: " + log);
            }
        } finally {
            workers.forEach(Process::destroyForcibly);
        }
        try (Jedis jedis = new Jedis(RedisServers.HOST, RedisServers.SHARED_PORT)) {
            assertEquals(Integer.toString(2 * ROUNDS), jedis.get(counterKey), "lost updates");
            jedis.del(counterKey);
        }
    }
}

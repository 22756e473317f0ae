package dev.exclusive.redis;

import dev.exclusive.LockRegistry;
import dev.exclusive.LockResult;
import java.net.URI;
import java.time.Duration;
import redis.clients.jedis.RedisClient;

/**
 * The other process of {@link CrossProcessTest}: increments a counter kept in Redis with a non-atomic GET and
 * SET, under the lock, a given number of times. Arguments: Redis URL, lock name, counter key, rounds.
 */
public final class CounterWorker {

    private CounterWorker() {}

    public static void main(String[] args) {
        URI url = URI.create(args[0]);
        String lockName = args[1];
        String counterKey = args[2];
        int rounds = Integer.parseInt(args[3]);
        try (LockRegistry registry = LockRegistry.builder()
                        .store("redis", RedisLockStore.create(url))
                        .build();
                RedisClient redis = RedisClient.create(url)) {
            for (int i = 0; i < rounds; i++) {
                LockResult<Void> result = registry.lock(lockName, Duration.ofSeconds(30))
                        .block(Duration.ofSeconds(60), () -> {
                            String value = redis.get(counterKey);
                            redis.set(counterKey, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                            return null;
                        });
                if (!result.acquired()) {
                    System.err.println("gave up waiting after 60 s in round " + i);
                    System.exit(2);
                }
            }
        }
    }
}

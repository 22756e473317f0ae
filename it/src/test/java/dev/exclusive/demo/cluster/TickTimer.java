package dev.exclusive.demo.cluster;

import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.LockBusy;
import dev.exclusive.cdi.OnBusy;
import jakarta.annotation.Resource;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Every 3 s on every "server" (each deployment of the test WAR), as the design's nightly job:
 * {@code @Schedule} and {@code @Exclusive(onBusy = SKIP)} on the same timeout method. A run writes
 * {@code <tick> <server> ran}; a skipped tick is seen through the {@link LockBusy} event and writes
 * {@code <tick> <server> skipped}. A run lasts a second, longer than the spread between the servers' timers.
 */
@Singleton
@Lock(LockType.READ)
public class TickTimer {

    static final long PERIOD_MILLIS = 3000;

    @Resource(lookup = "java:module/ModuleName")
    String server;

    @Schedule(second = "*/3", minute = "*", hour = "*", persistent = false)
    @Exclusive(value = "it:tick", ttl = 30, onBusy = OnBusy.SKIP)
    void tick() {
        record("ran");
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void skipped(@Observes LockBusy busy) {
        if (busy.lockName().endsWith("it:tick")) {
            record("skipped");
        }
    }

    private void record(String what) {
        long tick = Math.round((double) System.currentTimeMillis() / PERIOD_MILLIS);
        Path file = Path.of(ConfigProvider.getConfig().getValue("it.tick.dir", String.class), "ticks.txt");
        try {
            Files.writeString(
                    file,
                    tick + " " + server + " " + what + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

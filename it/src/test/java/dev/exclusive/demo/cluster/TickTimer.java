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
 * Every 2 s on every "server" (each deployment of the test WAR), a quick job as the design's scheduled jobs are
 * written: {@code @Schedule} and {@code @Exclusive(onBusy = SKIP)} on the same timeout method, here with a
 * {@code minHold} of 1 s (a deployment can override it and the lock name in MicroProfile Config). The job takes no
 * time at all. A run appends {@code <tick> ran} to {@code <it.tick.dir>/<server>.txt}; a skipped tick, seen through
 * the {@link LockBusy} event of its lock, appends {@code <tick> skipped}. {@link FiresLate} makes a
 * server's timer fire late by its configured skew.
 */
@Singleton
@Lock(LockType.READ)
public class TickTimer {

    static final long PERIOD_MILLIS = 2000;

    @Resource(lookup = "java:module/ModuleName")
    String server;

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    @FiresLate
    @Exclusive(value = "it:tick", ttl = 10, minHold = 1, onBusy = OnBusy.SKIP)
    void tick() {
        record("ran");
    }

    public void skipped(@Observes LockBusy busy) {
        if (busy.lockName().contains("it:tick")) { // not a buyer of CrossVendorIT's stock that waited in vain
            record("skipped");
        }
    }

    private void record(String what) {
        Path file = Path.of(ConfigProvider.getConfig().getValue("it.tick.dir", String.class), server + ".txt");
        try {
            Files.writeString(
                    file,
                    LateTimerInterceptor.tick() + " " + what + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

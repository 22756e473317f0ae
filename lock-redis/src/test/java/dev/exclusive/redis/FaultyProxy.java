package dev.exclusive.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on loopback in front of one Redis that misbehaves on purpose, as a network can:
 * <ul>
 * <li>{@link #loseRepliesAfter}: the first connection that sends a command containing the given text still
 * delivers that command to Redis, but receives nothing more, as if the reply were lost. The client then times
 * out on its read; what it does next (give up, or send the command again on a new connection) is what a test
 * observes.</li>
 * <li>{@link #delayReplies}: every reply reaches the client that much later (a slow link or a slow Redis).</li>
 * <li>{@link #stall}: nothing is forwarded any more either way, on every connection, old or new, while every
 * socket stays open: a half-open link, which no client notices by reading; {@link #resume} forwards again.</li>
 * </ul>
 * Everything else is forwarded unchanged, byte for byte.
 */
final class FaultyProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final AtomicReference<byte[]> armed = new AtomicReference<>();
    private final AtomicInteger lostReplies = new AtomicInteger();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long replyDelayMillis;
    private final Object stallMonitor = new Object();
    private boolean stalled;

    private FaultyProxy(ServerSocket server, int targetPort) {
        this.server = server;
        this.targetPort = targetPort;
    }

    /**
     * @param targetPort the port of the Redis on {@value RedisServers#HOST}
     * @return a started proxy on a free port of {@value RedisServers#HOST}
     */
    static FaultyProxy start(int targetPort) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(RedisServers.HOST));
        FaultyProxy proxy = new FaultyProxy(server, targetPort);
        daemon(proxy::accept, "proxy-accept-" + server.getLocalPort());
        return proxy;
    }

    /** @return the port clients connect to */
    int port() {
        return server.getLocalPort();
    }

    /** Arms the proxy: the next connection that sends {@code text} gets no reply any more. Once only. */
    void loseRepliesAfter(String text) {
        armed.set(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Delays every reply from now on by {@code delay} (each chunk read from Redis waits that long). */
    void delayReplies(Duration delay) {
        replyDelayMillis = delay.toMillis();
    }

    /** Stops forwarding anything, either way, on every connection; sockets stay open. */
    void stall() {
        synchronized (stallMonitor) {
            stalled = true;
        }
    }

    /** Forwards again what {@link #stall()} held back, and everything after it. */
    void resume() {
        synchronized (stallMonitor) {
            stalled = false;
            stallMonitor.notifyAll();
        }
    }

    /** @return how many connections have lost their replies so far */
    int lostReplies() {
        return lostReplies.get();
    }

    @Override
    public void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            resume();
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private void accept() {
        while (!closed.get()) {
            try {
                Socket client = server.accept();
                Socket redis = new Socket(RedisServers.HOST, targetPort);
                sockets.add(client);
                sockets.add(redis);
                AtomicBoolean mute = new AtomicBoolean();
                daemon(() -> toRedis(client, redis, mute), "proxy-to-redis-" + client.getPort());
                daemon(() -> toClient(redis, client, mute), "proxy-to-client-" + client.getPort());
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Forwards commands; mutes the connection before forwarding the command that contains the armed text. */
    private void toRedis(Socket client, Socket redis, AtomicBoolean mute) {
        byte[] window = new byte[0];
        try (InputStream in = client.getInputStream();
                OutputStream out = redis.getOutputStream()) {
            byte[] buffer = new byte[8192];
            for (int read; (read = in.read(buffer)) != -1; ) {
                byte[] needle = armed.get();
                if (needle != null) {
                    // the text may straddle two reads: search the tail of the previous one too
                    byte[] seen = Arrays.copyOf(window, window.length + read);
                    System.arraycopy(buffer, 0, seen, window.length, read);
                    if (contains(seen, needle) && armed.compareAndSet(needle, null)) {
                        mute.set(true);
                        lostReplies.incrementAndGet();
                    }
                    window = Arrays.copyOfRange(seen, Math.max(0, seen.length - needle.length), seen.length);
                }
                awaitNotStalled();
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // either side closed, or the proxy's own thread was stopped
        } finally {
            closeQuietly(client, redis);
        }
    }

    private void toClient(Socket redis, Socket client, AtomicBoolean mute) {
        try (InputStream in = redis.getInputStream();
                OutputStream out = client.getOutputStream()) {
            byte[] buffer = new byte[8192];
            for (int read; (read = in.read(buffer)) != -1; ) {
                long delay = replyDelayMillis;
                if (delay > 0) {
                    Thread.sleep(delay); // the injected latency itself, not a wait for a condition
                }
                awaitNotStalled();
                if (!mute.get()) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
        } catch (IOException | InterruptedException e) {
            // either side closed, or the proxy's own thread was stopped
        } finally {
            closeQuietly(client, redis);
        }
    }

    private void awaitNotStalled() throws InterruptedException {
        synchronized (stallMonitor) {
            while (stalled && !closed.get()) {
                stallMonitor.wait();
            }
        }
    }

    private void closeQuietly(Socket... pair) {
        for (Socket socket : pair) {
            try {
                socket.close();
            } catch (IOException e) {
                // already closed
            }
            sockets.remove(socket);
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}

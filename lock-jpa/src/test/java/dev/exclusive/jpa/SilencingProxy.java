package dev.exclusive.jpa;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of a server that a test can silence, as a network that stops carrying packets in the
 * middle of a conversation: the sockets stay open, but nothing is forwarded in either direction any more (what a
 * side sends is read and dropped), and a connection accepted while it is silent hears nothing. {@link #heal} makes it
 * forward again, on new connections only: a conversation that lost bytes cannot go on.
 */
final class SilencingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long generation;
    private volatile boolean silent;

    /** Starts forwarding to {@code host:port}. */
    SilencingProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("proxy-accept", this::accept).start();
    }

    /** @return the port this proxy listens on, at the loopback address */
    int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding, both ways, on every connection; later connections are accepted and hear nothing. */
    void silence() {
        silent = true;
    }

    /** Forwards again on connections accepted from now on. */
    void heal() {
        generation++;
        silent = false;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                sockets.add(client);
                if (silent) {
                    daemon("proxy-silent", () -> pump(client, null, -1)).start();
                    continue;
                }
                Socket upstream = new Socket(host, port);
                sockets.add(upstream);
                long born = generation;
                daemon("proxy-up", () -> pump(client, upstream, born)).start();
                daemon("proxy-down", () -> pump(upstream, client, born)).start();
            }
        } catch (IOException closed) {
            // the proxy is closed
        }
    }

    /** Copies {@code from} to {@code to} while this connection may speak; drops what it reads otherwise. */
    private void pump(Socket from, Socket to, long born) {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to == null ? null : to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                if (out != null && !silent && born == generation) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            if (out != null && !silent && born == generation) {
                to.shutdownOutput();
            }
        } catch (IOException e) {
            // one side went away; the other side learns it from its own read or write
        }
    }

    private static Thread daemon(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }
}

package io.phoenixtxn.tm.ha;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of one server that a test can cut and heal, so one ZooKeeper client loses its connection
 * while the server, and every other client, stay up (a network partition or a slow reconnect after a ZooKeeper
 * restart). While cut, open connections are closed and new ones are accepted and closed at once; the client's
 * session lives on in the server until its timeout, as after a real partition. While swallowing, new connections are
 * accepted and then neither answered nor closed, as a restarting ZooKeeper did in the chaos run (issue 14): it
 * accepted connections before it served and dropped them without closing; those stay swallowed after a heal.
 */
final class CuttableTcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> open = new ArrayList<>();
    private final List<Socket> swallowed = new ArrayList<>();
    private final Thread acceptor;
    private boolean cut;
    private boolean swallow;
    private volatile boolean closed;

    CuttableTcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "test-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** host:port clients connect to instead of the server. */
    String address() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Closes every proxied connection and refuses new ones until {@link #heal()}. */
    synchronized void cut() {
        cut = true;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    /** Closes every proxied connection; new ones are held open, never answered, even after {@link #heal()}. */
    synchronized void swallow() {
        cut();
        cut = false;
        swallow = true;
    }

    /** Waits until {@link #swallow()} holds at least {@code count} connections; false after the timeout. */
    synchronized boolean awaitSwallowed(int count, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (swallowed.size() < count) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    synchronized void heal() {
        cut = false;
        swallow = false;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            synchronized (this) {
                if (swallow) {
                    swallowed.add(client);
                    notifyAll();
                    continue;
                }
            }
            try {
                Socket server = new Socket(target.getAddress(), target.getPort());
                synchronized (this) {
                    if (cut || closed) {
                        closeQuietly(client);
                        closeQuietly(server);
                        continue;
                    }
                    open.add(client);
                    open.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side or cut() closed the connection
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "test-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do: the socket is gone either way
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cut();
        synchronized (this) {
            swallowed.forEach(CuttableTcpProxy::closeQuietly);
            swallowed.clear();
        }
    }
}

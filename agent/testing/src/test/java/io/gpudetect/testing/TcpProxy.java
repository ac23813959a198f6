package io.gpudetect.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of a real API server, to take it away and bring it back as an upgrade
 * does: {@link #cut()} closes every connection and stops listening (new connections are refused),
 * {@link #restore()} listens again on the same port. TLS passes through untouched.
 */
public final class TcpProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket listening;

    public TcpProxy(String host, int targetPort) {
        this.target = new InetSocketAddress(host, targetPort);
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        restore();
    }

    public int port() {
        return port;
    }

    /** Listens again on {@link #port()}. */
    public synchronized void restore() {
        if (listening != null) {
            return;
        }
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            listening = server;
            Thread accept = new Thread(() -> accept(server), "tcp-proxy-accept");
            accept.setDaemon(true);
            accept.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() {
        if (listening != null) {
            closeQuietly(listening);
            listening = null;
        }
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    private void accept(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // The listening socket was closed by cut(), or the server refused: the client sees a reset.
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // One side closed: close the other below.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // Closing is all that is asked.
        }
    }

    @Override
    public void close() {
        cut();
    }
}

package io.gpudetect.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * {@code /healthz} (the process answers), {@code /readyz} (a pass has finished without an API error),
 * {@code /metrics} (Prometheus text) and {@code POST /detect} (a pass now), over HTTP/1.1 on one thread.
 *
 * <p>A hand-written server rather than the JDK's {@code com.sun.net.httpserver}: that one costs two threads
 * (dispatcher and idle-timer), ~150 classes and, for the {@code Date} header of every answer, the JDK's time
 * zone names and locale data on the heap, ~2.5 MiB of the agent's resident memory for four fixed answers to
 * the kubelet's probes and a Prometheus scrape. Each connection carries one request and is closed after the
 * answer; a client that sends nothing for {@link #READ_TIMEOUT_MS} is dropped, so a stuck one holds the
 * probes up at most that long (their timeout is 5 s).
 */
public final class AgentHttpServer implements AutoCloseable {

    static final int READ_TIMEOUT_MS = 2_000;
    /** Request line and headers; a longer head is refused. */
    static final int MAX_HEAD = 8 * 1024;
    /** A request body (none is expected) is read and dropped up to this, so that closing does not reset the answer. */
    static final int MAX_BODY = 64 * 1024;

    private final ServerSocket socket;
    private final NodeAgent agent;
    private final AgentLoop loop;
    private final Thread thread;

    public AgentHttpServer(int port, NodeAgent agent, AgentLoop loop) throws IOException {
        this.agent = agent;
        this.loop = loop;
        socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(port), 16);
        thread = new Thread(this::serve, "gpu-detect-http");
        thread.setDaemon(true);
        thread.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try (Socket connection = socket.accept()) {
                connection.setSoTimeout(READ_TIMEOUT_MS);
                answer(new BufferedInputStream(connection.getInputStream(), 1024), connection.getOutputStream());
            } catch (IOException | RuntimeException e) {
                // One broken or slow connection ends only itself; a closed server socket ends the loop.
            }
        }
    }

    /** Reads one request from {@code in} and writes its answer to {@code out}. */
    void answer(InputStream in, OutputStream out) throws IOException {
        String head = readHead(in);
        if (head == null) {
            skipBody(in, Math.min(in.available(), MAX_BODY)); // what has come of it already: no reset on close
            reply(out, 431, "request head too large\n", "text/plain", true);
            return;
        }
        String[] requestLine = head.substring(0, lineEnd(head)).split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            reply(out, 400, "bad request\n", "text/plain", true);
            return;
        }
        skipBody(in, contentLength(head));
        String method = requestLine[0];
        String target = requestLine[1];
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        boolean body = !method.equals("HEAD");
        if (path.equals("/detect")) {
            if (method.equals("POST")) {
                loop.trigger("http");
                reply(out, 202, "pass requested\n", "text/plain", true);
            } else {
                reply(out, 405, "use POST\n", "text/plain", body);
            }
            return;
        }
        if (!method.equals("GET") && body) {
            reply(out, 405, "use GET\n", "text/plain", true);
            return;
        }
        switch (path) {
            case "/healthz" -> reply(out, 200, "ok\n", "text/plain", body);
            case "/readyz" -> {
                PassReport last = agent.lastPass();
                boolean ready = last != null && !last.failed();
                reply(out, ready ? 200 : 503, ready ? "ready\n" : "no successful pass yet\n", "text/plain", body);
            }
            case "/metrics" -> reply(out, 200, agent.metrics().render(), "text/plain; version=0.0.4", body);
            default -> reply(out, 404, "not found\n", "text/plain", body);
        }
    }

    /** The request line and headers up to the blank line, or null when they exceed {@link #MAX_HEAD}. */
    private static String readHead(InputStream in) throws IOException {
        byte[] buf = new byte[MAX_HEAD];
        int n = 0;
        while (n < buf.length) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the request head");
            }
            buf[n++] = (byte) b;
            if (b == '\n' && (endsWith(buf, n, "\r\n\r\n") || endsWith(buf, n, "\n\n"))) {
                return new String(buf, 0, n, StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static boolean endsWith(byte[] buf, int n, String end) {
        if (n < end.length()) {
            return false;
        }
        for (int i = 0; i < end.length(); i++) {
            if (buf[n - end.length() + i] != end.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int lineEnd(String head) {
        int nl = head.indexOf('\n');
        return nl > 0 && head.charAt(nl - 1) == '\r' ? nl - 1 : nl;
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                try {
                    return Long.parseLong(line.substring(colon + 1).trim());
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    private static void skipBody(InputStream in, long length) throws IOException {
        long left = Math.min(length, MAX_BODY);
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    return;
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    /** Writes the answer; {@code withBody} false (a HEAD request) writes its headers only. */
    private static void reply(OutputStream out, int status, String body, String type, boolean withBody)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason(status) + "\r\n"
                + "Date: " + DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)) + "\r\n"
                + "Content-Type: " + type + "\r\n"
                + "Content-Length: " + bytes.length + "\r\n"
                + "Connection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        if (withBody) {
            out.write(bytes);
        }
        out.flush();
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 202 -> "Accepted";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 431 -> "Request Header Fields Too Large";
            case 503 -> "Service Unavailable";
            default -> "";
        };
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

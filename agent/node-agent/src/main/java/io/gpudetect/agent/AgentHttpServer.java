package io.gpudetect.agent;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * {@code /healthz} (the process answers), {@code /readyz} (a pass has finished without an API error),
 * {@code /metrics} (Prometheus text) and {@code POST /detect} (a pass now), over HTTP/1.1.
 *
 * <p>{@code POST /detect} answers 202 when it scheduled a pass (now, or at the end of the minimum trigger
 * interval) and 429 with {@code Retry-After} (whole seconds) when a pass is already scheduled and waiting for
 * that interval to end: the scheduled pass covers the request, and the client learns when asking again can
 * schedule another. See {@link PassTriggers}.
 *
 * <p>Blocking sockets, not the JDK's {@code com.sun.net.httpserver}: that server's dispatcher wakes every second
 * ({@code selector.select(1000)}, a constant) and its idle-connection timer every 10 s, ~0.13 ms of the agent's
 * interpreted CPU each second with no request at all (docs/performance.md, "The agent between its passes"). Here
 * a thread waits in {@code accept}, and a thread of its own for each connection (at most
 * {@link #MAX_CONNECTIONS} at once; the next wait in the kernel's backlog) in a read that the kernel ends after
 * {@code idle} without a byte: no thread runs between requests. Each connection carries one request: the answer
 * says {@code Connection: close} and the connection is closed after it (kubelet's probes open a connection a
 * probe anyway; a Prometheus scrape opens one a scrape), so that no kept-open connection holds a thread. A
 * connection that sends no request is closed after {@code idle}, as the JDK's server closes one after its
 * {@code sun.net.httpserver.idleInterval} (30 s).
 */
public final class AgentHttpServer implements AutoCloseable {

    /** How long a connection may stay open without a request: the JDK server's default idle interval. */
    public static final Duration IDLE = Duration.ofSeconds(30);
    /** Connections served at once; more wait in the kernel's backlog (probes, a scraper and a few {@code curl}s fit). */
    static final int MAX_CONNECTIONS = 16;
    /** The longest request line or header line, the most header lines, the largest request body (nothing reads it). */
    private static final int MAX_LINE = 8192;
    private static final int MAX_HEADERS = 100;
    private static final long MAX_BODY = 64 * 1024;

    private final NodeAgent agent;
    private final AgentLoop loop;
    private final int idleMillis;
    private final ServerSocket socket;
    private final Semaphore slots = new Semaphore(MAX_CONNECTIONS);
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    /**
     * Listens on {@code port} (0: any free port) of every address, and serves until {@link #close}.
     *
     * @param idle how long a connection may stay open without a request ({@link #IDLE} in the agent)
     */
    public AgentHttpServer(int port, NodeAgent agent, AgentLoop loop, Duration idle) throws IOException {
        this.agent = agent;
        this.loop = loop;
        this.idleMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, idle.toMillis()));
        socket = new ServerSocket(port);
        acceptor = new Thread(this::acceptAll, "agent-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void acceptAll() {
        while (!socket.isClosed()) {
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                return;
            }
            Socket s;
            try {
                s = socket.accept();
            } catch (IOException e) {
                slots.release();
                // Closed by close() (the loop's test ends it), a connection reset before it was accepted, or no
                // file descriptor left: a pause, so that a lasting failure does not spin.
                pause();
                continue;
            }
            open.add(s);
            Thread t = new Thread(() -> {
                try {
                    serve(s);
                } finally {
                    open.remove(s);
                    slots.release();
                }
            }, "agent-http");
            t.setDaemon(true);
            t.start();
        }
    }

    /** One request and its answer, then the connection closed; closed without one when the client sends nothing. */
    private void serve(Socket s) {
        try (s) {
            s.setSoTimeout(idleMillis);
            s.setTcpNoDelay(true);
            exchange(new BufferedInputStream(s.getInputStream(), 2048), s.getOutputStream());
        } catch (IOException | RuntimeException e) {
            // Idle past the limit, the client closed or reset the connection, or sent what is not a request
            // line: nothing to answer, the connection is closed.
        }
    }

    /** One request and its answer. */
    private void exchange(InputStream in, OutputStream out) throws IOException {
        String requestLine = line(in, true);
        if (requestLine == null) {
            return;
        }
        int sp1 = requestLine.indexOf(' ');
        int sp2 = sp1 < 0 ? -1 : requestLine.indexOf(' ', sp1 + 1);
        if (sp1 <= 0 || sp2 <= sp1 + 1 || requestLine.indexOf(' ', sp2 + 1) >= 0) {
            reply(out, 400, "Bad Request", "bad request line\n", null, false);
            return;
        }
        String method = requestLine.substring(0, sp1);
        String target = requestLine.substring(sp1 + 1, sp2);
        if (!requestLine.startsWith("HTTP/1.", sp2 + 1)) {
            reply(out, 400, "Bad Request", "HTTP/1.0 or HTTP/1.1 only\n", null, false);
            return;
        }
        long contentLength = -1;
        boolean chunked = false;
        boolean expectContinue = false;
        for (int n = 0; ; n++) {
            String header = line(in, false);
            if (header.isEmpty()) {
                break;
            }
            int colon = header.indexOf(':');
            if (n == MAX_HEADERS || colon <= 0 || header.charAt(colon - 1) == ' ' || header.charAt(0) == ' '
                    || header.charAt(0) == '\t') {
                reply(out, 400, "Bad Request", n == MAX_HEADERS ? "too many header lines\n" : "bad header line\n",
                        null, false);
                return;
            }
            String name = header.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                if (contentLength >= 0 || !isDigits(value) || value.length() > 18) {
                    reply(out, 400, "Bad Request", "bad Content-Length\n", null, false);
                    return;
                }
                contentLength = Long.parseLong(value);
            } else if (name.equals("transfer-encoding")) {
                if (chunked || !value.equalsIgnoreCase("chunked")) {
                    reply(out, 501, "Not Implemented", "Transfer-Encoding chunked only\n", null, false);
                    return;
                }
                chunked = true;
            } else if (name.equals("expect")) {
                expectContinue = value.equalsIgnoreCase("100-continue");
            }
        }
        if (chunked && contentLength >= 0) {
            reply(out, 400, "Bad Request", "both Content-Length and Transfer-Encoding\n", null, false);
            return;
        }
        if (contentLength > MAX_BODY) {
            reply(out, 413, "Content Too Large", "a request body of at most " + MAX_BODY + " bytes\n", null, false);
            return;
        }
        if (expectContinue && (chunked || contentLength > 0)) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        // No endpoint reads a body: it is read to its end before the answer, so that closing the connection with
        // unread bytes does not make the kernel reset it before the client has the answer.
        if (chunked ? !skipChunked(in) : !skip(in, Math.max(0, contentLength))) {
            reply(out, 413, "Content Too Large", "a request body of at most " + MAX_BODY + " bytes\n", null, false);
            return;
        }
        boolean head = method.equals("HEAD");
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        try {
            answer(out, method, path, head);
        } catch (RuntimeException e) {
            reply(out, 500, "Internal Server Error", "the agent could not answer " + path + ": " + e + "\n", null, head);
        }
    }

    private void answer(OutputStream out, String method, String path, boolean head) throws IOException {
        switch (path) {
            case "/healthz" -> reply(out, 200, "OK", "ok\n", null, head);
            case "/readyz" -> {
                PassReport last = agent.lastPass();
                boolean ready = last != null && !last.failed();
                reply(out, ready ? 200 : 503, ready ? "OK" : "Service Unavailable", ready ? "ready\n"
                        : last == null ? "no pass finished yet\n" : "last pass failed: " + last.error() + "\n",
                        null, head);
            }
            case "/metrics" -> reply(out, 200, "OK", agent.metrics().render(), "text/plain; version=0.0.4", null, head);
            case "/detect" -> {
                if (!method.equals("POST")) {
                    reply(out, 405, "Method Not Allowed", "use POST\n", "text/plain", "Allow: POST\r\n", head);
                } else if (loop.trigger("http") instanceof PassTriggers.Throttled throttled) {
                    long after = throttled.retryAfterSeconds();
                    reply(out, 429, "Too Many Requests", "a pass is already scheduled in " + after + "s\n",
                            "text/plain", "Retry-After: " + after + "\r\n", head);
                } else {
                    reply(out, 202, "Accepted", "pass requested\n", null, head);
                }
            }
            default -> reply(out, 404, "Not Found", "no such endpoint: " + path
                    + " (/healthz, /readyz, /metrics, POST /detect)\n", null, head);
        }
    }

    private static void reply(OutputStream out, int status, String reason, String body, String extraHeaders,
                              boolean head) throws IOException {
        reply(out, status, reason, body, "text/plain", extraHeaders, head);
    }

    /** Writes the answer in one write, {@code Connection: close} among its headers: no request follows on it. */
    private static void reply(OutputStream out, int status, String reason, String body, String type,
                              String extraHeaders, boolean head) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder h = new StringBuilder(160).append("HTTP/1.1 ").append(status).append(' ').append(reason)
                .append("\r\nDate: ");
        httpDate(h, System.currentTimeMillis() / 1000).append("\r\nContent-Type: ").append(type)
                .append("\r\nContent-Length: ").append(bytes.length).append("\r\n");
        if (extraHeaders != null) {
            h.append(extraHeaders);
        }
        h.append("Connection: close\r\n");
        byte[] top = h.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[top.length + (head ? 0 : bytes.length)];
        System.arraycopy(top, 0, all, 0, top.length);
        if (!head) {
            System.arraycopy(bytes, 0, all, top.length, bytes.length);
        }
        out.write(all);
        out.flush();
    }

    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
            "Nov", "Dec"};

    /** {@code Sun, 29 Nov 2026 10:48:19 GMT} (RFC 9110's IMF-fixdate), without a formatter's printer chain. */
    static StringBuilder httpDate(StringBuilder b, long epochSecond) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
        b.append(DAYS[t.getDayOfWeek().ordinal()]).append(", ");
        two(b, t.getDayOfMonth()).append(' ').append(MONTHS[t.getMonthValue() - 1]).append(' ').append(t.getYear())
                .append(' ');
        two(b, t.getHour()).append(':');
        two(b, t.getMinute()).append(':');
        return two(b, t.getSecond()).append(" GMT");
    }

    private static StringBuilder two(StringBuilder b, int n) {
        return b.append((char) ('0' + n / 10)).append((char) ('0' + n % 10));
    }

    /**
     * A line ending in LF (a CR before it dropped), ISO-8859-1. Null at the end of the stream before a request's
     * first byte when {@code first}; otherwise that end is an {@link EOFException}. Blank lines before a request
     * line are skipped, as RFC 9112 asks.
     */
    private static String line(InputStream in, boolean first) throws IOException {
        StringBuilder b = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (first && b.length() == 0) {
                    return null;
                }
                throw new EOFException("the connection ended within a request");
            }
            if (c == '\n') {
                int end = b.length();
                if (end > 0 && b.charAt(end - 1) == '\r') {
                    b.setLength(end - 1);
                }
                if (first && b.length() == 0) {
                    continue;
                }
                return b.toString();
            }
            if (b.length() == MAX_LINE) {
                throw new IOException("a request line or header line longer than " + MAX_LINE + " bytes");
            }
            b.append((char) c);
        }
    }

    private static boolean isDigits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Reads past {@code n} bytes; false when they are more than {@link #MAX_BODY}. */
    private static boolean skip(InputStream in, long n) throws IOException {
        if (n > MAX_BODY) {
            return false;
        }
        for (long left = n; left > 0; ) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new EOFException("the connection ended within a request body");
                }
                skipped = 1;
            }
            left -= skipped;
        }
        return true;
    }

    /** Reads past a chunked body and its trailer lines; false when its chunks add up to more than {@link #MAX_BODY}. */
    private static boolean skipChunked(InputStream in) throws IOException {
        long total = 0;
        while (true) {
            String sizeLine = line(in, false);
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            long size;
            try {
                size = hex.isEmpty() || hex.length() > 8 ? -1 : Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0) {
                throw new IOException("a bad chunk size line");
            }
            total += size;
            if (total > MAX_BODY) {
                return false;
            }
            if (size == 0) {
                while (!line(in, false).isEmpty()) {
                    // trailer lines: read past
                }
                return true;
            }
            skip(in, size);
            if (!line(in, false).isEmpty()) {
                throw new IOException("a chunk longer than its size");
            }
        }
    }

    private void pause() {
        if (!socket.isClosed()) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing: nothing more to do with it
        }
    }

    /** Stops listening and closes every open connection; a request being answered ends with its connection. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing more to do with it
        }
        acceptor.interrupt();
        for (Socket s : open) {
            closeQuietly(s);
        }
        try {
            acceptor.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

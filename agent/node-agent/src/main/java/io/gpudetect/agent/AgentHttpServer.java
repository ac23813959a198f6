package io.gpudetect.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * {@code /healthz} (the process answers), {@code /readyz} (a pass has finished without an API error),
 * {@code /metrics} (Prometheus text) and {@code POST /detect} (a pass now), on the JDK's own HTTP server.
 *
 * <p>{@code POST /detect} answers 202 when it scheduled a pass (now, or at the end of the minimum trigger
 * interval) and 429 with {@code Retry-After} (whole seconds) when a pass is already scheduled and waiting for
 * that interval to end: the scheduled pass covers the request, and the client learns when asking again can
 * schedule another. See {@link PassTriggers}.
 */
public final class AgentHttpServer implements AutoCloseable {

    private final HttpServer server;

    public AgentHttpServer(int port, NodeAgent agent, AgentLoop loop) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/healthz", ex -> reply(ex, 200, "ok\n", "text/plain"));
        server.createContext("/readyz", ex -> {
            PassReport last = agent.lastPass();
            boolean ready = last != null && !last.failed();
            reply(ex, ready ? 200 : 503, ready ? "ready\n"
                    : last == null ? "no pass finished yet\n" : "last pass failed: " + last.error() + "\n", "text/plain");
        });
        server.createContext("/metrics", ex -> reply(ex, 200, agent.metrics().render(), "text/plain; version=0.0.4"));
        server.createContext("/detect", ex -> {
            if (!"POST".equals(ex.getRequestMethod())) {
                reply(ex, 405, "use POST\n", "text/plain");
                return;
            }
            if (loop.trigger("http") instanceof PassTriggers.Throttled throttled) {
                ex.getResponseHeaders().set("Retry-After", String.valueOf(throttled.retryAfterSeconds()));
                reply(ex, 429, "a pass is already scheduled in " + throttled.retryAfterSeconds() + "s\n", "text/plain");
                return;
            }
            reply(ex, 202, "pass requested\n", "text/plain");
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange ex, int status, String body, String type) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

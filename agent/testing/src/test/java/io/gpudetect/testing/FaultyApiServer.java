package io.gpudetect.testing;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.record.GpuCapacity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * fabric8's mock API server in CRUD mode behind a dispatcher that can misbehave on demand: answer chosen
 * requests with an error (500, 429 with {@code Retry-After}, 503), slow them down, or drop every open
 * watch. Every request is logged with the time it arrived, so a test can count what the agent sent in
 * each phase of a scenario.
 */
public final class FaultyApiServer implements AutoCloseable {

    /** One request as the server saw it. */
    public record Seen(long atMillis, String method, String path, boolean watch, boolean byAdmin) {
        @Override
        public String toString() {
            return method + " " + path.replaceAll("\\?.*", "") + (watch ? " (watch)" : "");
        }
    }

    /** The user agent of {@link #admin()}'s requests, which are left out of the counts. */
    static final String ADMIN_AGENT = "test-admin";

    private final KubernetesMockServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final List<WebSocket> watches = new CopyOnWriteArrayList<>();
    private volatile Function<RecordedRequest, MockResponse> fault = r -> null;
    private volatile Predicate<RecordedRequest> slow = r -> false;
    private volatile Duration delay = Duration.ZERO;

    public FaultyApiServer() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(responses,
                List.of(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class)));
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                boolean watch = request.getPath().contains("watch=true");
                String agent = request.getHeader("User-Agent");
                seen.add(new Seen(System.currentTimeMillis(), request.getMethod(), request.getPath(), watch,
                        agent != null && agent.contains(ADMIN_AGENT)));
                MockResponse injected = fault.apply(request);
                if (injected != null) {
                    return injected;
                }
                MockResponse answer = crud.dispatch(withoutPodNodeSelector(request));
                if (slow.test(request)) {
                    answer.setBodyDelay(delay);
                }
                if (answer.getWebSocketListener() != null) {
                    answer.withWebSocketUpgrade(remembering(answer.getWebSocketListener()));
                }
                return answer;
            }
        }, false);
        server.init();
    }

    /**
     * The CRUD server cannot evaluate {@code spec.nodeName} field selectors (it matches nothing), so pod lists
     * and watches are answered for every pod; the agent filters by node name itself as well.
     */
    private static RecordedRequest withoutPodNodeSelector(RecordedRequest r) {
        String path = r.getPath();
        if (!path.startsWith("/api/v1/pods") || !path.contains("fieldSelector=spec.nodeName")) {
            return r;
        }
        String rewritten = path.replaceAll("fieldSelector=spec.nodeName[^&]*&?", "").replaceAll("[?&]$", "");
        return new RecordedRequest(r.getHttpVersion(), r.method(), rewritten, r.getHeaders(), r.getBody());
    }

    public int port() {
        return server.getPort();
    }

    /** A client like the agent's: no retries of its own, the given request timeout, the Retry-After hint. */
    public KubernetesClient client(Duration requestTimeout, RetryAfterHint hint) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + port())
                .withRequestRetryBackoffLimit(0).withRequestTimeout((int) requestTimeout.toMillis())
                .withNamespace("default").build();
        return new KubernetesClientBuilder().withConfig(config)
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(RetryAfterHint.NAME, hint)).build();
    }

    /** A client for "someone else" (kubectl, the garbage collector): its requests are not counted. */
    public KubernetesClient admin() {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + port())
                .withRequestRetryBackoffLimit(0).withUserAgent(ADMIN_AGENT).withNamespace("default").build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** From now on, requests {@code which} selects get {@code answer}; others go to the CRUD server. */
    public void failWhen(Predicate<RecordedRequest> which, MockResponse answer) {
        fault = r -> which.test(r) ? answer : null;
    }

    /** From now on, requests {@code which} selects are answered by the CRUD server after {@code delay}. */
    public void slowDown(Predicate<RecordedRequest> which, Duration delay) {
        this.delay = delay;
        this.slow = which;
    }

    /** Back to normal. */
    public void heal() {
        fault = r -> null;
        slow = r -> false;
    }

    /** Closes every watch the server holds open, as an API server restart or a load balancer timeout does. */
    public int dropWatches() {
        int n = 0;
        for (WebSocket ws : watches) {
            if (ws.close(1001, "dropped by test")) {
                n++;
            }
        }
        watches.clear();
        return n;
    }

    public static MockResponse status(int code, String reason) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(Serialization.asJson(new StatusBuilder().withCode(code).withReason(reason)
                        .withMessage(reason).withStatus("Failure").build()));
    }

    /** What the API server's overload filters send: a 429, a {@code Retry-After} header and a plain-text body. */
    public static MockResponse tooManyRequests(int retryAfterSeconds) {
        return new MockResponse().setResponseCode(429).setHeader("Retry-After", retryAfterSeconds)
                .setHeader("Content-Type", "text/plain; charset=utf-8")
                .setBody("Too many requests, please try again later.\n");
    }

    /**
     * What the API server sends to a watch that resumes from a resource version its watch cache no longer
     * holds: the watch opens, then one ERROR event carrying a 410 "Expired" status, then it closes. A client
     * must list again; events in between are not replayed.
     */
    public static MockResponse expiredWatch() {
        String event = "{\"type\":\"ERROR\",\"object\":" + Serialization.asJson(new StatusBuilder().withCode(410)
                .withReason("Expired").withMessage("too old resource version").withStatus("Failure").build()) + "}";
        return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
            @Override
            public void onOpen(WebSocket ws, Response response) {
                ws.send(event);
                ws.close(1000, "expired");
            }
        });
    }

    public static boolean isWatch(RecordedRequest r) {
        return r.getPath().contains("watch=true");
    }

    /** The agent's requests seen since {@code fromMillis} (the admin client's left out). */
    public List<Seen> since(long fromMillis) {
        List<Seen> out = new ArrayList<>();
        for (Seen s : seen) {
            if (s.atMillis() >= fromMillis && !s.byAdmin()) {
                out.add(s);
            }
        }
        return out;
    }

    /** The agent's requests since {@code fromMillis} counted by method, path (query dropped) and watch flag. */
    public Map<String, Integer> countSince(long fromMillis) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Seen s : since(fromMillis)) {
            counts.merge(s.toString(), 1, Integer::sum);
        }
        return counts;
    }

    @Override
    public void close() {
        server.destroy();
    }

    private WebSocketListener remembering(WebSocketListener inner) {
        return new WebSocketListener() {
            @Override
            public void onBeforeAccept(WebSocket ws, Response response) {
                inner.onBeforeAccept(ws, response);
            }

            @Override
            public void onOpen(WebSocket ws, Response response) {
                watches.add(ws);
                inner.onOpen(ws, response);
            }

            @Override
            public void onMessage(WebSocket ws, String text) {
                inner.onMessage(ws, text);
            }

            @Override
            public void onMessage(WebSocket ws, ByteString bytes) {
                inner.onMessage(ws, bytes);
            }

            @Override
            public void onMessage(WebSocket ws, byte[] bytes) {
                inner.onMessage(ws, bytes);
            }

            @Override
            public void onClosing(WebSocket ws, int code, String reason) {
                inner.onClosing(ws, code, reason);
            }

            @Override
            public void onClosed(WebSocket ws, int code, String reason) {
                watches.remove(ws);
                inner.onClosed(ws, code, reason);
            }

            @Override
            public void onFailure(WebSocket ws, Throwable t, Response response) {
                watches.remove(ws);
                inner.onFailure(ws, t, response);
            }
        };
    }
}

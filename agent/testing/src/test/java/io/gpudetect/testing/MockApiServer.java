package io.gpudetect.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.gpudetect.record.GpuCapacity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A CRUD mock API server to run the real agent against by hand (memory and request measurements):
 * {@code java -cp ... io.gpudetect.testing.MockApiServer KUBECONFIG_OUT NODE [PODS [dra]]}. It creates the node,
 * and with PODS that many of {@link NodePods}' pods on it (the first ten each holding an {@code nvidia.com/gpu}),
 * with {@code dra} also serves {@code resource.k8s.io/v1} and the node's ResourceSlice of 8 GPUs; it writes a
 * kubeconfig pointing at itself, and every 10 s prints the requests it received, by method and path.
 *
 * <p>fabric8's CRUD store answers a {@code spec.nodeName} field selector with nothing (it knows only name and
 * namespace as fields): here that selector is dropped before the store sees it. The server holds only this node's
 * pods and slices, so every agent's list and watch then gets what a real API server would select.
 *
 * <p>Its watches also start where they are asked to ({@link #nodeSelectorIgnoring(boolean)}): fabric8's store
 * sends every stored object as ADDED whenever a watch opens, whatever its {@code resourceVersion}, and fabric8's
 * informers re-open each watch every 5-10 minutes, so against the plain store an agent re-read its node's 110 pods
 * (~0.8 MB of JSON, ~1.8 s of CPU interpreted) at each re-watch, which a real API server never sends
 * (docs/performance.md, "The agent's CPU per real minute, by thread").
 */
public final class MockApiServer {

    private MockApiServer() {
    }

    public static void main(String[] args) throws Exception {
        Path kubeconfig = Path.of(args[0]);
        String node = args.length > 1 ? args[1] : "node-1";
        int pods = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        boolean dra = args.length > 3 && args[3].equals("dra");
        KubernetesMockServer server = nodeSelectorIgnoring(true);
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        if (dra) {
            server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, """
                    {"kind":"APIGroup","apiVersion":"v1","name":"resource.k8s.io",
                     "versions":[{"groupVersion":"resource.k8s.io/v1","version":"v1"}],
                     "preferredVersion":{"groupVersion":"resource.k8s.io/v1","version":"v1"}}""").always();
        }
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().withNewStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus().build()).create();
            for (int p = 0; p < pods; p++) {
                Pod pod = Serialization.unmarshal(NodePods.pod(node, p, p < 10), Pod.class);
                client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
            }
            if (dra) {
                client.genericKubernetesResources(new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                                .withGroup("resource.k8s.io").withVersion("v1").withKind("ResourceSlice")
                                .withPlural("resourceslices").withNamespaced(false).build())
                        .resource(Serialization.unmarshal(NodePods.slice(node, 8), GenericKubernetesResource.class))
                        .create();
            }
        }
        writeKubeconfig(kubeconfig, server.getPort());
        System.out.println("mock API server on port " + server.getPort() + ", kubeconfig " + kubeconfig);
        long window = 0;
        while (true) {
            Map<String, Integer> seen = new TreeMap<>();
            long end = System.currentTimeMillis() + 10_000;
            RecordedRequest r;
            while (System.currentTimeMillis() < end) {
                r = server.takeRequest(200, TimeUnit.MILLISECONDS);
                if (r != null) {
                    String path = r.getPath().replaceAll("\\?.*", "");
                    seen.merge(r.getMethod() + " " + path + (r.getPath().contains("watch=true") ? " (watch)" : ""), 1,
                            Integer::sum);
                }
            }
            window++;
            System.out.println("window " + window + " (10 s): " + seen);
        }
    }

    /** fabric8's CRUD mock server, started, knowing the GpuCapacity kind: the tests' API server. */
    public static KubernetesMockServer crud() {
        var responses = new HashMap<io.fabric8.mockwebserver.ServerRequest, java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        return server;
    }

    /** A client configuration for {@code server}: no retries (a test sees each answer), namespace {@code default}. */
    public static io.fabric8.kubernetes.client.Config config(KubernetesMockServer server) {
        return new io.fabric8.kubernetes.client.ConfigBuilder(io.fabric8.kubernetes.client.Config.empty())
                .withMasterUrl("http://localhost:" + server.getPort()).withRequestRetryBackoffLimit(0)
                .withNamespace("default").build();
    }

    /**
     * fabric8's CRUD mock server, started, except that a {@code spec.nodeName} field selector is dropped before the
     * CRUD store sees it: the store knows only {@code metadata.name} and {@code metadata.namespace} as fields and
     * answers any other selector with nothing, where a real API server selects pods and ResourceSlices by
     * {@code spec.nodeName}. Expectations ({@code server.expect()}) are answered first, as in fabric8's own.
     */
    public static KubernetesMockServer nodeSelectorIgnoring() {
        return nodeSelectorIgnoring(false);
    }

    /**
     * {@link #nodeSelectorIgnoring()}, and with {@code fromVersion} a watch asked for from a {@code resourceVersion}
     * N (other than 0) is sent only events for objects whose version is above N, as a real API server does: the
     * store's own watch sends every stored object as ADDED when it opens (an informer's list, then its watch from
     * the list's version, got each object twice; each re-watch, every 5-10 minutes, all of them again).
     */
    public static KubernetesMockServer nodeSelectorIgnoring(boolean fromVersion) {
        var responses = new HashMap<io.fabric8.mockwebserver.ServerRequest, java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(responses);
        Dispatcher dropping = new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                String path = r.getPath();
                String dropped = path.replaceAll("fieldSelector=spec\\.nodeName(%3D|=)[^&]*&?", "").replaceAll("[?&]$", "");
                MockResponse response = crud.dispatch(dropped.equals(path) ? r
                        : new RecordedRequest(r.getHttpVersion(), r.method(), dropped, r.getHeaders(), r.getBody()));
                long since = fromVersion ? watchVersion(path) : 0;
                WebSocketListener watch = response.getWebSocketListener();
                return since > 0 && watch != null ? response.withWebSocketUpgrade(new FromVersion(watch, since)) : response;
            }
        };
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, dropping,
                false);
        server.init();
        return server;
    }

    /** The {@code resourceVersion} a watch request ({@code watch=true}) asks to start from; 0 for anything else. */
    static long watchVersion(String path) {
        if (!path.matches(".*[?&]watch=(true|1)(&.*)?$")) {
            return 0;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[?&]resourceVersion=(\\d+)").matcher(path);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /**
     * The store's watch, minus the events for objects at or below version {@code since}: its socket is wrapped
     * so that each text frame (a watch event, {@code {"type":...,"object":{...}}}) goes out only if the object's
     * {@code metadata.resourceVersion} is above {@code since} (or is not a number).
     */
    static final class FromVersion extends WebSocketListener {

        private final WebSocketListener store;
        private final long since;

        FromVersion(WebSocketListener store, long since) {
            this.store = store;
            this.since = since;
        }

        /** Whether the watch event {@code frame} is for an object above version {@code since}. */
        static boolean after(String frame, long since) {
            try {
                String version = Serialization.jsonMapper().readTree(frame).path("object").path("metadata")
                        .path("resourceVersion").asText("");
                return !version.matches("\\d+") || Long.parseLong(version) > since;
            } catch (java.io.IOException e) {
                return true;
            }
        }

        private WebSocket filtered(WebSocket socket) {
            return new WebSocket() {
                @Override
                public RecordedRequest request() {
                    return socket.request();
                }

                @Override
                public boolean send(String text) {
                    return !after(text, since) || socket.send(text);
                }

                @Override
                public boolean send(byte[] bytes) {
                    return send(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
                }

                @Override
                public boolean close(int code, String reason) {
                    return socket.close(code, reason);
                }
            };
        }

        @Override
        public void onBeforeAccept(WebSocket socket, Response response) {
            store.onBeforeAccept(filtered(socket), response);
        }

        @Override
        public void onOpen(WebSocket socket, Response response) {
            store.onOpen(filtered(socket), response);
        }

        @Override
        public void onMessage(WebSocket socket, String text) {
            store.onMessage(filtered(socket), text);
        }

        @Override
        public void onClosing(WebSocket socket, int code, String reason) {
            store.onClosing(filtered(socket), code, reason);
        }

        @Override
        public void onClosed(WebSocket socket, int code, String reason) {
            store.onClosed(filtered(socket), code, reason);
        }

        @Override
        public void onFailure(WebSocket socket, Throwable t, Response response) {
            store.onFailure(filtered(socket), t, response);
        }
    }

    /** A kubeconfig whose only context talks to a mock API server on {@code port} of this machine. */
    public static void writeKubeconfig(Path file, int port) throws java.io.IOException {
        writeKubeconfig(file, "http://localhost:" + port);
    }

    /** A kubeconfig whose only context talks to the API server at {@code server} (a URL), with a token. */
    public static void writeKubeconfig(Path file, String server) throws java.io.IOException {
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s"}}]
                users: [{name: mock, user: {token: mock}}]
                contexts: [{name: mock, context: {cluster: mock, user: mock}}]
                current-context: mock
                """.formatted(server));
    }
}

package io.gpudetect.testing;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.record.GpuCapacity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A CRUD mock API server to run the real agent against by hand (memory and request measurements):
 * {@code java -cp ... io.gpudetect.testing.MockApiServer KUBECONFIG_OUT NODE}. It creates the node, writes a
 * kubeconfig pointing at itself, and every 10 s prints the requests it received, by method and path.
 */
public final class MockApiServer {

    private MockApiServer() {
    }

    public static void main(String[] args) throws Exception {
        Path kubeconfig = Path.of(args[0]);
        String node = args.length > 1 ? args[1] : "node-1";
        var responses = new HashMap<io.fabric8.mockwebserver.ServerRequest, java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().withNewStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus().build()).create();
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

package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's CRUD mock server, except that a {@code spec.nodeName} field selector is dropped before the CRUD
 * store sees it: the store knows only {@code metadata.name} and {@code metadata.namespace} as fields and
 * answers any other selector with nothing, where a real API server selects pods and ResourceSlices by
 * {@code spec.nodeName}. The readers filter by node themselves, so every object comes back and the readers'
 * own filter is what the tests see (a slice of another node must not count).
 */
public final class NodeSelectorIgnoringMock implements AutoCloseable {

    public final KubernetesMockServer server;
    public final KubernetesClient client;

    public NodeSelectorIgnoringMock() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher mixed = new KubernetesMixedDispatcher(responses);
        Dispatcher dropping = new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                String path = r.getPath();
                String dropped = path.replaceAll("fieldSelector=spec\\.nodeName(%3D|=)[^&]*&?", "").replaceAll("[?&]$", "");
                return mixed.dispatch(dropped.equals(path) ? r
                        : new RecordedRequest(r.getHttpVersion(), r.method(), dropped, r.getHeaders(), r.getBody()));
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, dropping, false);
        server.init();
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + server.getPort())
                .withRequestRetryBackoffLimit(0).build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}

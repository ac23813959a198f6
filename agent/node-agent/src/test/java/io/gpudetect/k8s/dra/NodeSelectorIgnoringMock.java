package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpudetect.testing.MockApiServer;

/**
 * fabric8's CRUD mock server, except that a {@code spec.nodeName} field selector is dropped before the CRUD
 * store sees it ({@link MockApiServer#nodeSelectorIgnoring}), with a client of it. The readers filter by node
 * themselves, so every object comes back and the readers' own filter is what the tests see (a slice of another
 * node must not count).
 */
public final class NodeSelectorIgnoringMock implements AutoCloseable {

    public final KubernetesMockServer server;
    public final KubernetesClient client;

    public NodeSelectorIgnoringMock() {
        server = MockApiServer.nodeSelectorIgnoring();
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

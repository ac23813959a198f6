package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.Targets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each write is one request and nothing else: the API-server load of a change or a heartbeat.
 * fabric8 reads a resource named only by name before patching it, so the sinks patch through the object.
 */
class WriteRequestsTest {

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + server.getPort())
                .withRequestRetryBackoffLimit(0).build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private List<String> requests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            seen.add(r.getMethod() + " " + r.getPath());
        }
        return seen;
    }

    @Test
    void aLabelChangeIsOnePatchWithoutAReadFirst() throws Exception {
        Node node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").addToLabels("a", "b")
                .endMetadata().build()).create();
        requests();
        TreeMap<String, String> set = new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "1"));
        NodeLabelSink sink = new NodeLabelSink(new NodeView(client, "n1"), Profiles.of("gpu-detect"));
        sink.apply(new NodeLabelSink.NodePatch("n1", node, new LabelChange.Patch(set, new TreeSet<>(),
                "gpu-detect.io/gpu.count")));
        assertEquals(List.of("PATCH /api/v1/nodes/n1"), requests());
        assertEquals("1", client.nodes().withName("n1").get().getMetadata().getLabels().get("gpu-detect.io/gpu.count"));
    }

    @Test
    void aHeartbeatIsOneStatusPatchWithoutAReadFirst() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        Duration heartbeat = Duration.ofMinutes(5);
        NodeView view = new NodeView(client, "n1");
        view.readForPass(true);
        CapacityRecordSink sink = new CapacityRecordSink(client, view);
        sink.apply(Targets.decide(sink, Targets.record(inventory, true, start, heartbeat)));
        requests();

        CapacityRecordSink.RecordChange change = Targets.decide(sink,
                Targets.record(inventory, true, start.plus(heartbeat), heartbeat));
        assertEquals("status", change.summary());
        assertEquals(1, sink.apply(change));
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/n1/status"), requests());
        assertEquals("2026-01-01T00:05:00Z",
                client.resources(GpuCapacity.class).withName("n1").get().getStatus().lastGoodPass());
    }

}

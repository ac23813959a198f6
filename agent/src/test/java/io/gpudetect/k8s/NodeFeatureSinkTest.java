package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class NodeFeatureSinkTest {

    KubernetesClient client;

    @Test
    void writesANodeFeatureOwnedByTheNodeAndReplacesItsLabelsWhole() {
        Node node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
                .create();
        NodeFeatureSink sink = new NodeFeatureSink(client, "gpu-detect");
        assertTrue(sink.write(node, new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "2", "gpu-detect.io/gpu.model", "t4"))));
        assertFalse(sink.write(node, new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "2", "gpu-detect.io/gpu.model", "t4"))),
                "unchanged labels are not written again");
        assertTrue(sink.write(node, new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "0"))));

        var feature = client.genericKubernetesResources(NodeFeatureSink.CONTEXT)
                .inNamespace("gpu-detect").withName("gpu-detect-n1").get();
        assertEquals("n1", feature.getMetadata().getLabels().get("nfd.node.kubernetes.io/node-name"));
        assertEquals("Node", feature.getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals(Map.of("labels", Map.of("gpu-detect.io/gpu.count", "0")), feature.getAdditionalProperties().get("spec"));
    }
}

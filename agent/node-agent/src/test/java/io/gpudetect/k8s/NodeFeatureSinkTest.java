package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.testing.Targets;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The NodeFeature sink's decisions, (stored object, pass output) -> change, and what applying them leaves. */
@EnableKubernetesMockClient(crud = true)
class NodeFeatureSinkTest {

    static final Map<String, String> TWO_T4 = Map.of("gpu-detect.io/gpu.count", "2", "gpu-detect.io/gpu.model", "t4");

    KubernetesClient client;

    @BeforeEach
    void node() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        view = new NodeView(client, "n1");
    }

    private NodeView view;

    /** A pass that wants {@code labels}, with the Node read for it. */
    private DesiredState output(Map<String, String> labels, boolean complete) {
        view.readForPass(true);
        return Targets.labels(labels, complete);
    }

    @Test
    void decisions() {
        NodeFeatureSink sink = new NodeFeatureSink(client, view, "gpu-detect");
        NodeFeatureSink.FeatureChange first = Targets.decide(sink, output(TWO_T4, true));
        assertEquals("create gpu-detect-n1", first.summary(), "no object yet: create");
        assertFalse(Targets.decide(sink, output(TWO_T4, false)).writes(), "an incomplete pass keeps the object");
        assertEquals(1, sink.apply(first));
        assertFalse(Targets.decide(sink, output(TWO_T4, true)).writes(), "unchanged labels are not written again");
        NodeFeatureSink.FeatureChange fewer = Targets.decide(sink, output(Map.of("gpu-detect.io/gpu.count", "0"), true));
        assertEquals("patch gpu-detect-n1", fewer.summary());
        sink.apply(fewer);

        var feature = client.genericKubernetesResources(NodeFeatureSink.CONTEXT)
                .inNamespace("gpu-detect").withName("gpu-detect-n1").get();
        assertEquals("n1", feature.getMetadata().getLabels().get("nfd.node.kubernetes.io/node-name"));
        assertEquals("Node", feature.getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals(Map.of("labels", Map.of("gpu-detect.io/gpu.count", "0")), feature.getAdditionalProperties().get("spec"),
                "the labels are replaced whole: keys no longer produced are gone");
    }

    @Test
    void afterARestartAnUnchangedStoredObjectIsNotWrittenAgain() {
        NodeFeatureSink before = new NodeFeatureSink(client, view, "gpu-detect");
        before.apply(Targets.decide(before, output(TWO_T4, true)));

        NodeFeatureSink restarted = new NodeFeatureSink(client, view, "gpu-detect");
        assertFalse(Targets.decide(restarted, output(TWO_T4, true)).writes());
        NodeFeatureSink.FeatureChange changed = Targets.decide(restarted, output(Map.of("gpu-detect.io/gpu.count", "1"), true));
        assertTrue(changed.writes());
        assertFalse(changed.create(), "the object exists: patched, not created again");
    }
}

package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Applies a {@link LabelChange.Patch} to the node as one JSON merge patch holding only the difference.
 * The patch carries the {@code resourceVersion} the decision was made from, so the API server refuses it
 * (409) if the node changed meanwhile; the caller then decides again from a fresh read. Never an update
 * of the whole object, never a delete.
 */
public final class NodeLabelSink {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;

    public NodeLabelSink(KubernetesClient client) {
        this.client = client;
    }

    public void apply(Node node, LabelChange.Patch patch) {
        client.nodes().withName(node.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(patch, node.getMetadata().getResourceVersion()));
    }

    /** The JSON merge patch body: set keys with values, removed keys as null, the annotation when it changes. */
    public static String mergePatch(LabelChange.Patch patch, String resourceVersion) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode metadata = root.putObject("metadata");
        if (resourceVersion != null) {
            metadata.put("resourceVersion", resourceVersion);
        }
        if (!patch.set().isEmpty() || !patch.remove().isEmpty()) {
            ObjectNode labels = metadata.putObject("labels");
            patch.set().forEach(labels::put);
            patch.remove().forEach(labels::putNull);
        }
        if (patch.ownedAnnotation() != null) {
            metadata.putObject("annotations").put(OwnedLabels.ANNOTATION, patch.ownedAnnotation());
        }
        return root.toString();
    }
}

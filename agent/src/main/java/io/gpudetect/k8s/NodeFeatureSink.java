package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Publishes the labels as an NFD {@code NodeFeature} object ({@code nfd.k8s-sigs.io/v1alpha1}) in the agent's
 * namespace, for nfd-master to apply. Owned by the Node like the capacity record; written only when the
 * labels differ from what was last written.
 */
public final class NodeFeatureSink {

    public static final String API_VERSION = "nfd.k8s-sigs.io/v1alpha1";
    public static final String KIND = "NodeFeature";
    /** Named in full so the client needs no API discovery call (nor the permission for it). */
    public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withKind(KIND).withPlural("nodefeatures")
            .withNamespaced(true).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String namespace;
    private Map<String, String> written;

    public NodeFeatureSink(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    public static String objectName(String nodeName) {
        return "gpu-detect-" + nodeName;
    }

    /** Writes the object; returns false when nothing changed. */
    public boolean write(Node node, SortedMap<String, String> labels) {
        if (Objects.equals(written, labels)) {
            return false;
        }
        String name = objectName(node.getMetadata().getName());
        GenericKubernetesResource feature = new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION)
                .withKind(KIND).withNewMetadata().withName(name).withNamespace(namespace)
                .addToLabels("nfd.node.kubernetes.io/node-name", node.getMetadata().getName())
                .withOwnerReferences(CapacityRecordSink.ownerReference(node)).endMetadata()
                .addToAdditionalProperties("spec", Map.of("labels", new TreeMap<>(labels))).build();
        try {
            var ops = client.genericKubernetesResources(CONTEXT).inNamespace(namespace);
            if (ops.withName(name).get() == null) {
                ops.resource(feature).create();
            } else {
                // A JSON patch replaces the whole map, so keys the pass no longer produces go away too.
                ops.withName(name).patch(PatchContext.of(PatchType.JSON), JSON.createArrayNode().add(JSON.createObjectNode()
                        .put("op", "add").put("path", "/spec").set("value",
                                JSON.valueToTree(Map.of("labels", new TreeMap<>(labels))))).toString());
            }
            written = new TreeMap<>(labels);
            return true;
        } catch (RuntimeException e) {
            written = null;
            throw e;
        }
    }
}

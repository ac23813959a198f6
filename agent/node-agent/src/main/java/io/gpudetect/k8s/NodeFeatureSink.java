package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The labels as an NFD {@code NodeFeature} object ({@code nfd.k8s-sigs.io/v1alpha1}) in the agent's namespace,
 * for nfd-master to apply. Owned by the Node like the capacity record. Written only when its labels differ
 * from the stored object's: the labels last written are remembered, and read from the object once at start,
 * so a restart sends no write for an unchanged node.
 */
public final class NodeFeatureSink implements Sink<NodeFeatureSink.Held, NodeFeatureSink.FeatureChange> {

    public static final String API_VERSION = "nfd.k8s-sigs.io/v1alpha1";
    public static final String KIND = "NodeFeature";
    /** Named in full so the client needs no API discovery call (nor the permission for it). */
    public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withKind(KIND).withPlural("nodefeatures")
            .withNamespaced(true).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final NodeView view;
    private final String namespace;
    /** The labels the stored object holds, as last written or read; null when unknown. */
    private Map<String, String> stored;

    public NodeFeatureSink(KubernetesClient client, NodeView view, String namespace) {
        this.client = client;
        this.view = view;
        this.namespace = namespace;
    }

    public static String objectName(String nodeName) {
        return "gpu-detect-" + nodeName;
    }

    /**
     * The object's labels to write; {@code labels} null when it is kept as it is, for {@code reason}.
     *
     * @param create true when there is no object yet
     */
    public record FeatureChange(String namespace, String name, Node owner, SortedMap<String, String> labels,
                                boolean create, String reason) implements Change {
        @Override
        public boolean writes() {
            return labels != null;
        }

        @Override
        public String summary() {
            return writes() ? (create ? "create " : "patch ") + name : "none";
        }

        @Override
        public String preview() {
            return writes() ? "# would " + (create ? "create" : "patch") + " NodeFeature " + namespace + "/" + name
                    + " labels:\n" + labels : "";
        }
    }

    @Override
    public String name() {
        return "nodefeature";
    }

    /**
     * The object's owner and labels as held.
     *
     * @param owner  the Node as the pass read it; null in a dry run without a cluster
     * @param labels the object's labels, as last written or read; null when there is no object or it is not known
     */
    public record Held(Node owner, Map<String, String> labels) {
    }

    /** Reads the object once (at start, or after a failed write); not at all for an incomplete pass. */
    @Override
    public Held read(DesiredState desired) {
        Node owner = view.passNode();
        if (desired.complete() && stored == null && owner != null) {
            GenericKubernetesResource current = client.genericKubernetesResources(CONTEXT).inNamespace(namespace)
                    .withName(objectName(desired.nodeName())).get();
            stored = current == null ? null : labelsOf(current);
        }
        return new Held(owner, stored);
    }

    @Override
    public FeatureChange decide(Held current, DesiredState desired) {
        String name = objectName(desired.nodeName());
        if (!desired.complete()) {
            return new FeatureChange(namespace, name, current.owner(), null, false,
                    "pass incomplete: NodeFeature kept");
        }
        if (Objects.equals(current.labels(), desired.labels())) {
            return new FeatureChange(namespace, name, current.owner(), null, false, "NodeFeature up to date");
        }
        return new FeatureChange(namespace, name, current.owner(), new TreeMap<>(desired.labels()),
                current.labels() == null, null);
    }

    @Override
    public int apply(FeatureChange change) {
        Node node = change.owner();
        try {
            var ops = client.genericKubernetesResources(CONTEXT).inNamespace(namespace);
            if (change.create()) {
                GenericKubernetesResource feature = new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION)
                        .withKind(KIND).withNewMetadata().withName(change.name()).withNamespace(namespace)
                        .addToLabels("nfd.node.kubernetes.io/node-name", node.getMetadata().getName())
                        .withOwnerReferences(CapacityRecordSink.ownerReference(node)).endMetadata()
                        .addToAdditionalProperties("spec", Map.of("labels", change.labels())).build();
                ops.resource(feature).create();
            } else {
                // A JSON patch replaces the whole map, so keys the pass no longer produces go away too.
                ops.withName(change.name()).patch(PatchContext.of(PatchType.JSON), JSON.createArrayNode()
                        .add(JSON.createObjectNode().put("op", "add").put("path", "/spec")
                                .set("value", JSON.valueToTree(Map.of("labels", change.labels())))).toString());
            }
            stored = change.labels();
            return 1;
        } catch (RuntimeException e) {
            stored = null;
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> labelsOf(GenericKubernetesResource feature) {
        Object spec = feature.getAdditionalProperties().get("spec");
        Object labels = spec instanceof Map<?, ?> m ? m.get("labels") : null;
        return labels instanceof Map<?, ?> l ? new TreeMap<>((Map<String, String>) l) : new TreeMap<>();
    }
}

package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Applies a {@link LabelChange.Patch} to the node as one JSON patch (RFC 6902) holding only the difference:
 * an {@code add} per new or changed label, a {@code remove} per withdrawn one, the owned-labels annotation
 * when it changes. The patch first sets {@code metadata.resourceVersion} to the version the decision was
 * made from, so the API server refuses it (409) if the node changed meanwhile, and the caller decides again
 * from a fresh read. Never an update of the whole object, never a delete.
 *
 * <p>Why JSON patch and not a merge patch with nulls: both remove keys on a real API server, but a JSON
 * patch says exactly which keys it touches, and fails whole instead of half-applying if a key it removes has
 * already gone.
 */
public final class NodeLabelSink {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;

    public NodeLabelSink(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Sends the patch and returns the Node as the API server has it after it: the newest state the agent
     * knows, newer than its informer's cache until the watch delivers the change.
     */
    public Node apply(Node node, LabelChange.Patch patch) {
        // resource(node), not withName(name): fabric8 then has the object and does not GET it before patching.
        return client.nodes().resource(node)
                .patch(PatchContext.of(PatchType.JSON), jsonPatch(patch, node.getMetadata().getResourceVersion(),
                        hasEntries(node.getMetadata().getLabels()), hasEntries(node.getMetadata().getAnnotations())));
    }

    /**
     * fabric8 reads an absent map as an empty one, and a JSON patch cannot add a key under a map that does
     * not exist (a real API server answers 422). An empty map is therefore replaced whole: the patch's
     * resourceVersion makes that safe, since the server refuses it if anyone added a key meanwhile.
     */
    private static boolean hasEntries(java.util.Map<String, String> map) {
        return map != null && !map.isEmpty();
    }

    /**
     * The JSON patch body. {@code hasLabels} / {@code hasAnnotations} say whether the maps hold keys on the
     * node: when not, the map is added whole (see {@link #hasEntries}).
     */
    public static String jsonPatch(LabelChange.Patch patch, String resourceVersion, boolean hasLabels,
                                   boolean hasAnnotations) {
        ArrayNode ops = JSON.createArrayNode();
        if (resourceVersion != null) {
            ops.addObject().put("op", "replace").put("path", "/metadata/resourceVersion").put("value", resourceVersion);
        }
        if (hasLabels) {
            patch.set().forEach((k, v) -> ops.addObject().put("op", "add").put("path", "/metadata/labels/" + escape(k))
                    .put("value", v));
            patch.remove().forEach(k -> ops.addObject().put("op", "remove").put("path", "/metadata/labels/" + escape(k)));
        } else if (!patch.set().isEmpty()) {
            ObjectNode labels = ops.addObject().put("op", "add").put("path", "/metadata/labels").putObject("value");
            patch.set().forEach(labels::put);
        }
        if (patch.ownedAnnotation() != null) {
            if (hasAnnotations) {
                ops.addObject().put("op", "add").put("path", "/metadata/annotations/" + escape(OwnedLabels.ANNOTATION))
                        .put("value", patch.ownedAnnotation());
            } else {
                ops.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value")
                        .put(OwnedLabels.ANNOTATION, patch.ownedAnnotation());
            }
        }
        return ops.toString();
    }

    /** RFC 6901: {@code ~} as {@code ~0}, {@code /} as {@code ~1} ({@code nvidia.com/gpu.count} is one path segment). */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    /** The same change as a JSON merge patch, for people to read in {@code --dry-run}. */
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

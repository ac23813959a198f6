package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.util.Map;
import java.util.Optional;

/**
 * The node's labels. Decides with {@link LabelSync} from the Node as the pass read it ({@link NodeView#passNode}), and
 * applies a {@link LabelChange.Patch} as one JSON patch (RFC 6902) holding only the difference: an {@code add} per new
 * or changed label, a {@code remove} per withdrawn one, the owned-labels annotation when it changes. The patch first
 * sets {@code metadata.resourceVersion} to the version the decision was made from, so the API server refuses it if the
 * node changed meanwhile; the pass then reads the node again and decides again ({@link #reread}). Never an update of
 * the whole object, never a delete.
 *
 * <p>Why JSON patch and not a merge patch with nulls: both remove keys on a real API server, but a JSON
 * patch says exactly which keys it touches, and fails whole instead of half-applying if a key it removes has
 * already gone.
 */
public final class NodeLabelSink implements Sink<Node, NodeLabelSink.NodePatch> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeView view;
    private final LabelProfiles profiles;

    public NodeLabelSink(NodeView view, LabelProfiles profiles) {
        this.view = view;
        this.profiles = profiles;
    }

    /**
     * The label change for one node, with the Node it was decided from (its resourceVersion guards the patch).
     *
     * @param basis the Node as read; null in a dry run without a cluster
     */
    public record NodePatch(String nodeName, Node basis, LabelChange change) implements Change {
        @Override
        public boolean writes() {
            return change instanceof LabelChange.Patch;
        }

        @Override
        public String summary() {
            return change instanceof LabelChange.Patch p ? "set=" + p.set().size() + ",remove=" + p.remove().size() : "none";
        }

        @Override
        public String preview() {
            return change instanceof LabelChange.Patch p
                    ? "# would patch node " + nodeName + " (JSON merge patch):\n" + mergePatch(p, null) : "";
        }
    }

    @Override
    public String name() {
        return "node";
    }

    /** The Node as the pass read it; null in a dry run without a cluster. */
    @Override
    public Node read(DesiredState desired) {
        return view.passNode();
    }

    /** {@link LabelSync}'s rule, with the Akash keys' owner as the pass decided it. */
    @Override
    public NodePatch decide(Node node, DesiredState desired) {
        Map<String, String> labels = node == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, String> annotations = node == null ? Map.of() : node.getMetadata().getAnnotations();
        return new NodePatch(desired.nodeName(), node, LabelSync.decide(labels, annotations, desired.labels(),
                desired.complete(), desired.akash().mayRemove(profiles::mayRemove)));
    }

    /**
     * Sends the patch. The Node the server returns becomes the agent's view of it ({@link NodeView#observed}),
     * newer than its informer's cache until the watch delivers the change.
     */
    @Override
    public int apply(NodePatch change) {
        Node node = change.basis();
        LabelChange.Patch patch = (LabelChange.Patch) change.change();
        view.patch(node, false, jsonPatch(patch, node.getMetadata().getResourceVersion(),
                hasEntries(node.getMetadata().getLabels()), hasEntries(node.getMetadata().getAnnotations())));
        return 1;
    }

    /** A 409 or a 422 is decided again from a fresh read ({@link NodeView#rereadAfterRefusal}). */
    @Override
    public Optional<Node> reread(Node current, int refusal, int attempt) {
        return view.rereadAfterRefusal(refusal, attempt);
    }

    /**
     * fabric8 reads an absent map as an empty one, and a JSON patch cannot add a key under a map that does
     * not exist (a real API server answers 422). An empty map is therefore replaced whole: the patch's
     * resourceVersion makes that safe, since the server refuses it if anyone added a key meanwhile.
     */
    private static boolean hasEntries(Map<String, String> map) {
        return map != null && !map.isEmpty();
    }

    /**
     * The JSON patch body. {@code hasLabels} / {@code hasAnnotations} say whether the maps hold keys on the
     * node: when not, the map is added whole (see {@link #hasEntries}).
     */
    public static String jsonPatch(LabelChange.Patch patch, String resourceVersion, boolean hasLabels,
                                   boolean hasAnnotations) {
        ArrayNode ops = NodeView.guardedPatch(resourceVersion);
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

package io.gpudetect.k8s.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.util.Optional;

/**
 * The Node's {@link GpuHealthCondition#TYPE} condition, decided by {@link GpuHealthCondition} from the Node as the
 * pass read it, and written as one JSON patch (RFC 6902) of the {@code nodes/status} subresource that touches that
 * one entry of {@code status.conditions}: a {@code test} that the entry at the index is still ours, then a
 * {@code replace} of it (or an {@code add} at the end of the list). Every other condition (the kubelet's
 * {@code Ready}, node-problem-detector's) is left byte for byte as it is: neither a strategic merge patch (merged by
 * {@code type} on a real API server, but a whole-list replacement wherever the merge key is not known) nor an update
 * of the whole status is sent. The patch also sets {@code metadata.resourceVersion} to the version the decision was
 * made from, so a Node changed meanwhile refuses it and the pass decides again from a fresh read.
 */
public final class HealthConditionSink implements Sink<Node, HealthConditionSink.ConditionPatch> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeView view;

    public HealthConditionSink(NodeView view) {
        this.view = view;
    }

    /**
     * The condition change for one node, with the Node it was decided from (its resourceVersion guards the patch).
     *
     * @param basis the Node as read; null in a dry run without a cluster
     */
    public record ConditionPatch(String nodeName, Node basis, GpuHealthCondition.Decision decision) implements Change {
        @Override
        public boolean writes() {
            return decision instanceof GpuHealthCondition.Write;
        }

        @Override
        public String summary() {
            return decision instanceof GpuHealthCondition.Write w ? w.condition().status() + "/" + w.condition().reason()
                    : "none";
        }

        @Override
        public String preview() {
            return decision instanceof GpuHealthCondition.Write w
                    ? "# would patch node " + nodeName + " status (JSON patch):\n"
                    + jsonPatch(w, basis == null ? null : basis.getMetadata().getResourceVersion())
                    : "";
        }
    }

    @Override
    public String name() {
        return "node-condition";
    }

    /** The newest Node the agent knows ({@link NodeView#newestInPass}): the label patch may have moved it. */
    @Override
    public Node read(DesiredState desired) {
        return view.newestInPass();
    }

    @Override
    public ConditionPatch decide(Node node, DesiredState desired) {
        HealthMarks marks = HealthMarks.of(node);
        return new ConditionPatch(desired.nodeName(), node, GpuHealthCondition.decide(marks, desired.health(),
                desired.complete(), desired.now()));
    }

    @Override
    public int apply(ConditionPatch change) {
        Node node = change.basis();
        GpuHealthCondition.Write write = (GpuHealthCondition.Write) change.decision();
        view.patch(node, true, jsonPatch(write, node.getMetadata().getResourceVersion()));
        return 1;
    }

    /** As for labels: a 409 or a 422 is decided again from a fresh read ({@link NodeView#rereadAfterRefusal}). */
    @Override
    public Optional<Node> reread(Node current, int refusal, int attempt) {
        return view.rereadAfterRefusal(refusal, attempt);
    }

    /** The JSON patch body: the resourceVersion guard, then the one entry. */
    public static String jsonPatch(GpuHealthCondition.Write write, String resourceVersion) {
        ArrayNode ops = NodeView.guardedPatch(resourceVersion);
        ObjectNode condition = JSON.createObjectNode();
        GpuHealthCondition.Written c = write.condition();
        condition.put("type", GpuHealthCondition.TYPE).put("status", c.status()).put("reason", c.reason())
                .put("message", c.message()).put("lastHeartbeatTime", c.lastHeartbeatTime())
                .put("lastTransitionTime", c.lastTransitionTime());
        if (write.index() >= 0) {
            String at = "/status/conditions/" + write.index();
            ops.addObject().put("op", "test").put("path", at + "/type").put("value", GpuHealthCondition.TYPE);
            ops.addObject().put("op", "replace").put("path", at).set("value", condition);
        } else {
            switch (write.list()) {
                case ENTRIES -> ops.addObject().put("op", "add").put("path", "/status/conditions/-").set("value", condition);
                case NO_LIST -> ops.addObject().put("op", "add").put("path", "/status/conditions").putArray("value")
                        .add(condition);
                case NO_OBJECT -> ops.addObject().put("op", "add").put("path", "/status").putObject("value")
                        .putArray("conditions").add(condition);
            }
        }
        return ops.toString();
    }
}

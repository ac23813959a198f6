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
 * The agent's opt-in taint ({@link HealthTaint}), written as one JSON patch of the Node that adds the taint at the
 * end of {@code spec.taints} or removes the entry at its index after a {@code test} that it is still the agent's:
 * no other taint is sent, so none is touched. Guarded by the Node's resourceVersion, as the labels are.
 */
public final class HealthTaintSink implements Sink<Node, HealthTaintSink.TaintPatch> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeView view;
    private final HealthTaint.Policy policy;

    public HealthTaintSink(NodeView view, HealthTaint.Policy policy) {
        this.view = view;
        this.policy = policy;
    }

    /** The taint change, with the Node it was decided from; {@code basis} null in a dry run without a cluster. */
    public record TaintPatch(String nodeName, Node basis, HealthTaint.Decision decision) implements Change {
        @Override
        public boolean writes() {
            return !(decision instanceof HealthTaint.Keep);
        }

        @Override
        public String summary() {
            return decision instanceof HealthTaint.Add ? "add" : decision instanceof HealthTaint.Remove ? "remove" : "none";
        }

        @Override
        public String preview() {
            return writes() ? "# would patch node " + nodeName + " (JSON patch):\n"
                    + jsonPatch(decision, basis == null ? null : basis.getMetadata().getResourceVersion()) : "";
        }
    }

    @Override
    public String name() {
        return "node-taint";
    }

    /** The newest Node the agent knows ({@link NodeView#newestInPass}): the label patch may have moved it. */
    @Override
    public Node read(DesiredState desired) {
        return view.newestInPass();
    }

    @Override
    public TaintPatch decide(Node node, DesiredState desired) {
        HealthMarks marks = HealthMarks.of(node);
        return new TaintPatch(desired.nodeName(), node, HealthTaint.decide(policy, marks, desired.health(),
                desired.complete()));
    }

    @Override
    public int apply(TaintPatch change) {
        Node node = change.basis();
        view.patch(node, false, jsonPatch(change.decision(), node.getMetadata().getResourceVersion()));
        return 1;
    }

    /** As for labels: a 409 or a 422 is decided again from a fresh read ({@link NodeView#rereadAfterRefusal}). */
    @Override
    public Optional<Node> reread(Node current, int refusal, int attempt) {
        return view.rereadAfterRefusal(refusal, attempt);
    }

    /** The JSON patch body: the resourceVersion guard, then the one taint added or removed. */
    public static String jsonPatch(HealthTaint.Decision decision, String resourceVersion) {
        ArrayNode ops = NodeView.guardedPatch(resourceVersion);
        ObjectNode taint = JSON.createObjectNode().put("key", HealthTaint.KEY).put("effect", HealthTaint.EFFECT);
        if (decision instanceof HealthTaint.Add add) {
            switch (add.list()) {
                case ENTRIES -> ops.addObject().put("op", "add").put("path", "/spec/taints/-").set("value", taint);
                case NO_LIST -> ops.addObject().put("op", "add").put("path", "/spec/taints").putArray("value").add(taint);
                case NO_OBJECT -> ops.addObject().put("op", "add").put("path", "/spec").putObject("value")
                        .putArray("taints").add(taint);
            }
        } else if (decision instanceof HealthTaint.Remove remove) {
            String at = "/spec/taints/" + remove.index();
            ops.addObject().put("op", "test").put("path", at + "/key").put("value", HealthTaint.KEY);
            ops.addObject().put("op", "remove").put("path", at);
        }
        return ops.toString();
    }
}

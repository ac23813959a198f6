package io.gpudetect.k8s.health;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;

/**
 * What the Node holds of the agent's health outputs: its {@link GpuHealthCondition#TYPE} condition and its
 * {@link HealthTaint} taint, with where each sits. Plain values, so that a pass can tell whether they changed
 * since the last one (someone removed the condition, edited the taint) without holding the Node.
 *
 * @param condition     the agent's condition; null when the Node has none
 * @param conditions    where the list of conditions is: whether the Node has one with entries, or a status at all
 * @param taintIndex    where the agent's taint sits in {@code spec.taints}; -1 when absent
 * @param taints        where the list of taints is
 */
public record HealthMarks(GpuHealthCondition.Held condition, Parent conditions, int taintIndex, Parent taints) {

    /** No Node read. */
    public static final HealthMarks NONE = new HealthMarks(null, Parent.NO_OBJECT, -1, Parent.NO_OBJECT);

    /**
     * Where a list the agent adds an entry to stands: with entries (add at its end), empty or absent under an
     * existing object (add the list whole: fabric8 reads an absent list as an empty one, and the patch's
     * resourceVersion makes replacing an empty one safe), or without even the object ({@code status} or
     * {@code spec}: add the object with the list).
     */
    public enum Parent {
        ENTRIES, NO_LIST, NO_OBJECT
    }

    public static HealthMarks of(Node node) {
        if (node == null) {
            return NONE;
        }
        List<NodeCondition> conditions = node.getStatus() == null || node.getStatus().getConditions() == null
                ? List.of() : node.getStatus().getConditions();
        GpuHealthCondition.Held held = null;
        for (int i = 0; i < conditions.size(); i++) {
            NodeCondition c = conditions.get(i);
            if (GpuHealthCondition.TYPE.equals(c.getType())) {
                held = new GpuHealthCondition.Held(i, c.getStatus(), c.getReason(), c.getMessage(),
                        c.getLastTransitionTime(), c.getLastHeartbeatTime());
                break;
            }
        }
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
                : node.getSpec().getTaints();
        int taint = -1;
        for (int i = 0; i < taints.size(); i++) {
            if (HealthTaint.KEY.equals(taints.get(i).getKey()) && HealthTaint.EFFECT.equals(taints.get(i).getEffect())) {
                taint = i;
                break;
            }
        }
        return new HealthMarks(held, parent(node.getStatus() != null, conditions), taint,
                parent(node.getSpec() != null, taints));
    }

    private static Parent parent(boolean objectExists, List<?> list) {
        return !objectExists ? Parent.NO_OBJECT : list.isEmpty() ? Parent.NO_LIST : Parent.ENTRIES;
    }
}

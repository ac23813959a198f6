package io.gpudetect.match;

import java.util.ArrayList;
import java.util.List;

/**
 * What a Node object says of whether it takes new work, read as Akash's inventory operator reads it
 * ({@code generateLabels} and {@code isNodeReady}, provider {@code operator/inventory/node-discovery.go} at
 * {@code afc4dd7c}): the first condition of type {@code Ready} must have status {@code True} (no such condition is
 * not ready), and {@code spec.unschedulable} must not be set. The operator reads no taint. Kubernetes' scheduler
 * places no new pod on such a node either.
 *
 * @param readiness   the node's Ready condition, or {@link Readiness#NOT_KNOWN} for a hand-written Node object
 *                    without a status
 * @param readyDetail the Ready condition's status and reason as written ({@code False: KubeletNotReady}); null
 *                    when the node is ready or has no such condition
 */
public record KubeNode(String name, Readiness readiness, String readyDetail, boolean unschedulable) {

    /** The node's Ready condition. */
    public enum Readiness { READY, NOT_READY, NO_CONDITION, NOT_KNOWN }

    /** A node known by name only: its state is not judged. */
    public static KubeNode named(String name) {
        return new KubeNode(name, Readiness.NOT_KNOWN, null, false);
    }

    /** A Node as the API server returns it. */
    public static KubeNode of(ListedNode node) {
        boolean cordoned = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().unschedulable());
        List<ListedNode.Condition> conditions = node.getStatus() == null || node.getStatus().conditions() == null
                ? List.of() : node.getStatus().conditions();
        for (ListedNode.Condition c : conditions) {
            if ("Ready".equals(c.type())) {
                return ready(node.getMetadata().getName(), c.status(), c.reason(), cordoned);
            }
        }
        return new KubeNode(node.getMetadata().getName(), Readiness.NO_CONDITION, null, cordoned);
    }

    /** A node whose first Ready condition has {@code status} (and {@code reason}, which may be null). */
    static KubeNode ready(String name, String status, String reason, boolean cordoned) {
        if ("True".equals(status)) {
            return new KubeNode(name, Readiness.READY, null, cordoned);
        }
        return new KubeNode(name, Readiness.NOT_READY, status + (reason == null || reason.isBlank() ? "" : ": " + reason),
                cordoned);
    }

    /** True when the object says whether the node is ready (it has a status); a cordon is known either way. */
    public boolean stateKnown() {
        return readiness != Readiness.NOT_KNOWN;
    }

    /**
     * Why the node takes no new work, in the operator's order: {@code not Ready (Ready is False: KubeletNotReady)},
     * {@code not Ready (no Ready condition)}, {@code cordoned (spec.unschedulable)}, joined by "and"; null when it
     * takes work or when that is not known.
     */
    public String unavailable() {
        return unavailable(null);
    }

    /**
     * {@link #unavailable()}, and then {@code excluded by the Akash inventory operator's exclude.nodes rule '<rule>'}
     * when {@code exclusionRule} (a rule of the operator's configuration that matches this node) is given.
     */
    public String unavailable(String exclusionRule) {
        List<String> why = new ArrayList<>();
        if (readiness == Readiness.NOT_READY) {
            why.add("not Ready (Ready is " + readyDetail + ")");
        } else if (readiness == Readiness.NO_CONDITION) {
            why.add("not Ready (no Ready condition)");
        }
        if (unschedulable) {
            why.add("cordoned (spec.unschedulable)");
        }
        if (exclusionRule != null) {
            why.add("excluded by the Akash inventory operator's exclude.nodes rule '" + exclusionRule + "'");
        }
        return why.isEmpty() ? null : String.join(" and ", why);
    }
}

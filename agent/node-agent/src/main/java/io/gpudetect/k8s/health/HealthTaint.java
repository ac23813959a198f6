package io.gpudetect.k8s.health;

import java.util.List;

/**
 * The agent's opt-in Node taint, {@code gpu-detect.io/gpu-unhealthy:NoSchedule}, decided purely from the GPUs'
 * states and the taint the Node holds. NoSchedule only: the scheduler places no new pod that does not tolerate it,
 * and pods already running stay (NoExecute would evict them, which is a remediation decision the agent leaves to
 * people and their tools). The agent adds and removes only this key with this effect and never touches another
 * taint; with the policy {@code none} it does not touch this one either.
 */
public final class HealthTaint {

    public static final String KEY = "gpu-detect.io/gpu-unhealthy";
    public static final String EFFECT = "NoSchedule";

    private HealthTaint() {
    }

    /** When the taint is on the Node. */
    public enum Policy {
        /** Never: the agent neither adds nor removes it (a taint left from an earlier setting stays). */
        NONE("none"),
        /** While any GPU is failed or lost. */
        ANY_FAILED("anyFailed"),
        /** While every GPU of the node is failed or lost (a node with no GPU is never tainted). */
        ALL_FAILED("allFailed");

        private final String id;

        Policy(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }

        /** The policy for a setting's text, any case; fails with the accepted values. */
        public static Policy parse(String text) {
            for (Policy p : values()) {
                if (p.id.equalsIgnoreCase(text.strip())) {
                    return p;
                }
            }
            throw new IllegalArgumentException("'" + text + "' is not one of none, anyFailed, allFailed");
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /** What the agent does to its taint after a pass. */
    public sealed interface Decision {
    }

    public record Keep(String reason) implements Decision {
    }

    /** Add the taint to the list where {@code list} says it stands. */
    public record Add(HealthMarks.Parent list) implements Decision {
    }

    /** Remove the taint at {@code index} of {@code spec.taints}. */
    public record Remove(int index) implements Decision {
    }

    /** Whether the policy wants the taint for these GPUs. */
    static boolean wanted(Policy policy, List<GpuHealthState> gpus) {
        return switch (policy) {
            case NONE -> false;
            case ANY_FAILED -> gpus.stream().anyMatch(g -> g.state().unusable());
            case ALL_FAILED -> !gpus.isEmpty() && gpus.stream().allMatch(g -> g.state().unusable());
        };
    }

    /**
     * The change to the Node's taints.
     *
     * @param marks      where the agent's taint sits in {@code spec.taints} (-1 when the Node does not carry it) and
     *                   where the list stands
     * @param complete   an incomplete pass changes nothing, as for labels
     */
    public static Decision decide(Policy policy, HealthMarks marks, List<GpuHealthState> gpus, boolean complete) {
        int heldIndex = marks.taintIndex();
        if (policy == Policy.NONE) {
            return new Keep("health taint off");
        }
        if (!complete) {
            return new Keep("pass incomplete: taint kept as it is");
        }
        boolean want = wanted(policy, gpus);
        if (want && heldIndex < 0) {
            return new Add(marks.taints());
        }
        if (!want && heldIndex >= 0) {
            return new Remove(heldIndex);
        }
        return new Keep(want ? "taint in place" : "no taint wanted");
    }
}

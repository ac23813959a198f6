package io.gpudetect.k8s.health;

import io.gpudetect.k8s.health.GpuHealthState.State;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The agent's Node condition, {@code GpuHealthy}, decided purely from the GPUs' states and the condition the Node
 * holds. The rule:
 * <ul>
 *   <li>{@code False} when any GPU is failed or lost, with the reason of the worst GPU (lost before failed; among
 *       equally bad ones, the first by PCI address) and a message naming every GPU by PCI address and UUID;</li>
 *   <li>{@code True} otherwise: reason {@code GpusHealthy}, or {@code GpuDegraded} (a degraded GPU still runs work;
 *       remediation that acts on {@code False} should not drain a node for correctable errors);</li>
 *   <li>no GPU detected: no condition is added; one the agent wrote before turns {@code Unknown}
 *       ({@code NoGpuDetected}), since "no GPU" is neither healthy nor failed;</li>
 *   <li>an incomplete pass changes nothing (as for labels), nor does a pass whose condition equals the held one;</li>
 *   <li>{@code lastTransitionTime} moves only when the status changes; {@code lastHeartbeatTime} is the time of
 *       the agent's last write of the condition (the agent writes only on change, never as a heartbeat).</li>
 * </ul>
 */
public final class GpuHealthCondition {

    /** The condition's type: the one entry of {@code status.conditions} the agent writes. */
    public static final String TYPE = "GpuHealthy";
    /** Longer messages end with how many GPUs were left out: a Node is read by every controller that watches nodes. */
    static final int MAX_MESSAGE = 1024;
    /** What a tool said of one GPU is cut here, so that one long diagnostic does not crowd the others out. */
    static final int MAX_TOOL_TEXT = 200;

    private GpuHealthCondition() {
    }

    /** What the condition says, without its times. */
    public record Value(String status, String reason, String message) {
    }

    /**
     * The condition as the Node holds it.
     *
     * @param index where it sits in {@code status.conditions} (the patch replaces that entry and no other)
     */
    public record Held(int index, String status, String reason, String message, String lastTransitionTime,
                       String lastHeartbeatTime) {

        Value value() {
            return new Value(status, reason, message);
        }
    }

    /** The condition a change writes, with its times as RFC 3339 text. */
    public record Written(String status, String reason, String message, String lastTransitionTime,
                          String lastHeartbeatTime) {
    }

    /** What the agent does to its condition after a pass. */
    public sealed interface Decision {
    }

    /** Nothing to write, for {@code reason}. */
    public record Keep(String reason) implements Decision {
    }

    /**
     * Write {@code condition}: in place of the entry at {@code index}, or, when {@code index} is -1, added to the
     * list where {@code list} says it stands.
     */
    public record Write(int index, HealthMarks.Parent list, Written condition) implements Decision {
    }

    /** The condition for these GPUs; null when there is none (no GPU detected). */
    public static Value desired(List<GpuHealthState> gpus) {
        if (gpus.isEmpty()) {
            return null;
        }
        List<GpuHealthState> worstFirst = gpus.stream()
                .sorted(Comparator.comparing(GpuHealthState::state).reversed()
                        .thenComparing(g -> g.pciAddress() == null ? "~" : g.pciAddress()))
                .toList();
        GpuHealthState worst = worstFirst.get(0);
        List<GpuHealthState> healthy = worstFirst.stream().filter(g -> g.state() == State.OK).toList();
        if (worst.state() == State.OK) {
            return new Value("True", "GpusHealthy", message(List.of(), healthy));
        }
        List<GpuHealthState> unhealthy = worstFirst.stream().filter(g -> g.state() != State.OK).toList();
        return new Value(worst.state().unusable() ? "False" : "True", worst.reason(), message(unhealthy, healthy));
    }

    /**
     * The message: each unhealthy GPU with its state, reason and what the tools said (cut at {@link #MAX_TOOL_TEXT}),
     * worst first, then the healthy ones. When all of it would pass {@link #MAX_MESSAGE} characters, it is cut
     * between GPUs and says how many were left out.
     */
    static String message(List<GpuHealthState> unhealthy, List<GpuHealthState> healthy) {
        List<String> parts = new ArrayList<>();
        for (GpuHealthState g : unhealthy) {
            String said = g.message().length() > MAX_TOOL_TEXT ? g.message().substring(0, MAX_TOOL_TEXT) + "..." : g.message();
            parts.add("GPU " + g.name() + " " + g.state().id() + " (" + g.reason() + ")" + (said.isEmpty() ? "" : ": " + said));
        }
        for (int i = 0; i < healthy.size(); i++) {
            String name = healthy.get(i).name();
            parts.add(i > 0 ? name : (healthy.size() == 1 ? "1 GPU healthy: " : healthy.size() + " GPUs healthy: ") + name);
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            String separator = i == 0 ? "" : i > unhealthy.size() ? ", " : "; ";
            int left = parts.size() - i - 1;
            int room = MAX_MESSAGE - (left == 0 ? 0 : leftOut(left).length());
            if (b.length() + separator.length() + parts.get(i).length() > room) {
                return b.append(leftOut(parts.size() - i)).toString();
            }
            b.append(separator).append(parts.get(i));
        }
        return b.toString();
    }

    private static String leftOut(int n) {
        return "; and " + n + " more GPU" + (n == 1 ? "" : "s") + " (the GpuCapacity record lists each)";
    }

    /**
     * The change to the Node's condition.
     *
     * @param marks      the agent's condition on the Node (null when it has none) and where the list stands
     * @param gpus       the GPUs' states from this pass
     * @param complete   whether the pass was complete; an incomplete one keeps the condition as it is
     */
    public static Decision decide(HealthMarks marks, List<GpuHealthState> gpus, boolean complete, Instant now) {
        Held held = marks.condition();
        if (!complete) {
            return new Keep("pass incomplete: condition kept as it is");
        }
        Value want = desired(gpus);
        if (want == null) {
            if (held == null) {
                return new Keep("no GPU detected: no condition");
            }
            want = new Value("Unknown", "NoGpuDetected", "no GPU detected on this node");
        }
        if (held != null && held.value().equals(want)) {
            return new Keep("condition up to date");
        }
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        String transition = held != null && want.status().equals(held.status()) && held.lastTransitionTime() != null
                ? held.lastTransitionTime() : time;
        return new Write(held == null ? -1 : held.index(), marks.conditions(),
                new Written(want.status(), want.reason(), want.message(), transition, time));
    }
}

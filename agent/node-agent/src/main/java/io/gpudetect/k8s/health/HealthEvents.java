package io.gpudetect.k8s.health;

import io.gpudetect.k8s.health.GpuHealthState.State;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The Events a pass posts on its Node: one per GPU whose state changed since the state the agent last published,
 * decided purely. The last published states are those of the {@code GpuCapacity} record as the pass found it,
 * before writing it: they live in the cluster, so an agent restarted (or upgraded, or rescheduled) posts nothing
 * again for a change it already reported, and a pass that changes no state posts nothing at all. A GPU seen for the
 * first time (no record yet, or a GPU the record did not list) gets an Event only when it is not healthy.
 */
public final class HealthEvents {

    private HealthEvents() {
    }

    /**
     * One change of one GPU's state.
     *
     * @param from the state last published; null when the GPU was not known
     */
    public record GpuChange(State from, GpuHealthState to) {

        /** The Event's reason: the new state's condition reason, or {@code GpuRecovered} for a GPU back to ok. */
        public String reason() {
            return to.state() == State.OK ? "GpuRecovered" : to.reason();
        }

        /** {@code Normal} for a GPU back to ok, {@code Warning} otherwise. */
        public String type() {
            return to.state() == State.OK ? "Normal" : "Warning";
        }

        /** The Event's note: the GPU, the change and what the tools said, within the API's 1 kB. */
        public String note() {
            String note = "GPU " + to.name() + ": " + (from == null ? "first seen " + to.state().id()
                    : from.id() + " -> " + to.state().id()) + (to.message().isEmpty() ? "" : ": " + to.message());
            return note.length() > 1000 ? note.substring(0, 997) + "..." : note;
        }
    }

    /** The GPUs' states as the record lists them; empty when there is no record. */
    public static List<GpuHealthState> published(GpuCapacity record) {
        if (record == null || record.getSpec() == null) {
            return List.of();
        }
        List<GpuHealthState> out = new ArrayList<>();
        for (GpuCapacitySpec.GpuEntry g : record.getSpec().gpus()) {
            // The record says ok, degraded, lost (failed once the model has it); absent when no tool said: ok, as
            // GpuHealthState.of reads a GPU without health.
            State state = g.health() == null ? State.OK : State.fromId(g.health().id());
            if (state != null) {
                out.add(new GpuHealthState(g.pciAddress(), g.uuid(), state, null, ""));
            }
        }
        return out;
    }

    /**
     * The changes from {@code published} to {@code now}, in the order of {@code now}. A GPU is the same GPU by PCI
     * address, else UUID; GPUs with neither (a GPU NVML could not even give a handle) are paired in their order, the
     * first such GPU now with the first the record lists, so that one stays one GPU from pass to pass.
     *
     * @param complete an incomplete pass publishes no state, so it posts nothing
     */
    public static List<GpuChange> changes(List<GpuHealthState> published, List<GpuHealthState> now, boolean complete) {
        if (!complete) {
            return List.of();
        }
        List<GpuHealthState> unnamedBefore = published.stream().filter(g -> g.pciAddress() == null && g.uuid() == null).toList();
        int unnamed = 0;
        List<GpuChange> out = new ArrayList<>();
        for (GpuHealthState g : now) {
            State before;
            if (g.pciAddress() == null && g.uuid() == null) {
                before = unnamed < unnamedBefore.size() ? unnamedBefore.get(unnamed).state() : null;
                unnamed++;
            } else {
                before = published.stream().filter(p -> g.sameGpu(p.pciAddress(), p.uuid())).map(GpuHealthState::state)
                        .findFirst().orElse(null);
            }
            if (before == null ? g.state() != State.OK : before != g.state()) {
                out.add(new GpuChange(before, g));
            }
        }
        return out;
    }
}

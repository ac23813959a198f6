package io.gpudetect.k8s.health;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import java.util.List;
import java.util.Locale;

/**
 * One GPU's health as the health outputs (the Node condition, Events, the taint, DRA device taint rules) decide
 * from it: the GPU named by PCI address and UUID, its state, a condition-style reason code and a message. The
 * outputs read nothing else of a GPU, so what the probes learn about health reaches them through {@link #of(Gpu)}
 * alone.
 *
 * @param pciAddress the GPU's PCI address ({@code 0000:3b:00.0}); null when no tool could say it
 * @param uuid       the GPU's UUID; null when the tool could not read it (a lost NVIDIA GPU answers no UUID)
 * @param reason     a condition reason (UpperCamelCase: {@code GpuLost}, {@code XidCritical}, {@code UncorrectableEcc});
 *                   null for a healthy GPU
 * @param message    what the tools said, in words; empty when they said nothing
 */
public record GpuHealthState(String pciAddress, String uuid, State state, String reason, String message) {

    /** The four states, from best to worst: the order {@link #worse} compares by. */
    public enum State {
        OK, DEGRADED, FAILED, LOST;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The state for an id as the record writes it ({@code ok}, {@code lost} ...); null for anything else. */
        public static State fromId(String id) {
            for (State s : values()) {
                if (s.id().equals(id)) {
                    return s;
                }
            }
            return null;
        }

        /** Failed and lost GPUs cannot run work: the condition turns False and the taints apply. */
        public boolean unusable() {
            return this == FAILED || this == LOST;
        }
    }

    public GpuHealthState {
        message = message == null ? "" : message;
    }

    /**
     * The one place the model's {@link Health} becomes the outputs' state. A GPU no tool reported health for
     * counts as ok: the outputs say a GPU is unhealthy only when a tool said so.
     */
    public static GpuHealthState of(Gpu gpu) {
        String address = gpu.pciAddress() == null ? null : gpu.pciAddress().toString();
        Health h = gpu.health();
        if (h == null || h.status() == Health.Status.OK) {
            return new GpuHealthState(address, gpu.uuid(), State.OK, null, "");
        }
        String message = String.join("; ", h.problems());
        State state = switch (h.status()) {
            case OK -> State.OK;
            case DEGRADED -> State.DEGRADED;
            case FAILED -> State.FAILED;
            case LOST -> State.LOST;
        };
        return new GpuHealthState(address, gpu.uuid(), state, reason(h), message);
    }

    /**
     * The condition reason for an unhealthy GPU: its first reason that leads to its state (the state is its worst
     * reason's), else, where a tool said the state without a code, one for the state itself.
     */
    private static String reason(Health h) {
        for (HealthReason r : h.reasons()) {
            if (r.leadsTo() == h.status()) {
                return r.code();
            }
        }
        return switch (h.status()) {
            case LOST -> HealthReason.GPU_LOST.code();
            case FAILED -> "GpuFailed";
            default -> "GpuDegraded";
        };
    }

    /** Each GPU of {@code gpus}, in their order. */
    public static List<GpuHealthState> of(List<Gpu> gpus) {
        return gpus.stream().map(GpuHealthState::of).toList();
    }

    /** True when this GPU is in a worse state than {@code other}. */
    public boolean worse(GpuHealthState other) {
        return state.compareTo(other.state) > 0;
    }

    /** The GPU in words: {@code 0000:3b:00.0 (GPU-5e1f...)}, with what is not known said so. */
    public String name() {
        return (pciAddress == null ? "at an unknown PCI address" : pciAddress)
                + " (" + (uuid == null ? "UUID unknown" : uuid) + ")";
    }

    /** The same GPU as {@code other}: the same PCI address, or, where either lacks one, the same UUID. */
    public boolean sameGpu(String otherAddress, String otherUuid) {
        if (pciAddress != null && otherAddress != null) {
            return pciAddress.equals(otherAddress);
        }
        return uuid != null && uuid.equals(otherUuid);
    }
}

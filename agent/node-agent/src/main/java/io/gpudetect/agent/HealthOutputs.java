package io.gpudetect.agent;

import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthTaint;

/**
 * Where the agent says a GPU failed or was lost, beside its labels and record (docs/provider.md, "GPU health outputs"). Each output
 * is its own setting, and the chart grants the permissions of those that are on only.
 *
 * @param condition    the Node condition {@code GpuHealthy} (nodes/status patch); on by default
 * @param events       {@code events.k8s.io/v1} Events on the Node, one per change of a GPU's state; on by default
 * @param taint        the taint {@code gpu-detect.io/gpu-unhealthy:NoSchedule}; {@code none} by default
 * @param deviceTaints DRA {@code DeviceTaintRule}s for failed or lost GPUs' devices; {@code off} by default
 */
public record HealthOutputs(boolean condition, boolean events, HealthTaint.Policy taint, DeviceTaints deviceTaints) {

    public static final HealthOutputs DEFAULT = new HealthOutputs(true, true, HealthTaint.Policy.NONE, DeviceTaints.OFF);
    /** Labels and the record only. */
    public static final HealthOutputs OFF = new HealthOutputs(false, false, HealthTaint.Policy.NONE, DeviceTaints.OFF);
}

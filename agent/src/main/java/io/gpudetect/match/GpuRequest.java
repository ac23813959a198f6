package io.gpudetect.match;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What one replica asks for: {@code units} GPUs, all from one node, each of them any one of {@code choices}
 * (the SDL's entries are alternatives). {@code units} 0 asks for no GPU (a CPU-only profile).
 */
public record GpuRequest(int units, List<GpuChoice> choices) {

    public GpuRequest {
        choices = List.copyOf(choices);
    }

    public static GpuRequest none() {
        return new GpuRequest(0, List.of());
    }

    public boolean asksForGpu() {
        return units > 0;
    }

    /** {@code 2 x (nvidia a100/80Gi | nvidia h100)}, or {@code no GPU}. */
    public String describe() {
        if (!asksForGpu()) {
            return "no GPU";
        }
        String any = choices.stream().map(GpuChoice::describe).collect(Collectors.joining(" | "));
        return units + " x " + (choices.size() > 1 ? "(" + any + ")" : any);
    }
}

package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * How a GPU is split: {@code kind} is {@code mig} for NVIDIA Multi-Instance GPU, or an AMD compute partition
 * mode ({@code spx}, {@code dpx}, {@code qpx}, {@code cpx}); {@code enabled} is the current mode,
 * {@code pendingEnabled} what it becomes after a reset. {@code instances} lists the slices that exist now.
 *
 * <p>AMD Instinct cards from MI300 on also split their memory: {@code memoryMode} is the current memory
 * partition mode ({@code nps1}, {@code nps4}). {@code modes} and {@code memoryModes} are the compute and memory
 * modes the card can be switched to (amdgpu's {@code available_compute_partition} and
 * {@code available_memory_partition}); null when no source says, empty when a source says the mode cannot be
 * switched.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Partitioning(String kind, Boolean enabled, Boolean pendingEnabled, List<Partition> instances,
                           String memoryMode, List<String> modes, List<String> memoryModes) {

    public Partitioning {
        instances = instances == null ? List.of() : List.copyOf(instances);
        modes = modes == null ? null : List.copyOf(modes);
        memoryModes = memoryModes == null ? null : List.copyOf(memoryModes);
    }

    /** A split with no memory partition and no known list of modes: NVIDIA MIG, or a tool that prints only the mode. */
    public Partitioning(String kind, Boolean enabled, Boolean pendingEnabled, List<Partition> instances) {
        this(kind, enabled, pendingEnabled, instances, null, null, null);
    }
}

package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * How a GPU is split: {@code kind} is {@code mig} for NVIDIA Multi-Instance GPU (or an AMD partition
 * mode such as {@code cpx}); {@code enabled} is the current mode, {@code pendingEnabled} what it becomes
 * after a reset. {@code instances} lists the slices that exist now.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Partitioning(String kind, Boolean enabled, Boolean pendingEnabled, List<Partition> instances) {

    public Partitioning {
        instances = instances == null ? List.of() : List.copyOf(instances);
    }
}

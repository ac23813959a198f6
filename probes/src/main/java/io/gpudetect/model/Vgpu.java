package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What an NVIDIA GPU's PCI config space says of NVIDIA vGPU: whether the function is a virtual GPU that a
 * hypervisor's vGPU manager hands to this (guest) host, and the host driver's version and branch the manager
 * writes into it. Null in a {@link Gpu} when the config space was not read (no sysfs, or only its first 64
 * bytes readable without root).
 *
 * @param present           true when NVIDIA's vendor-specific capability carries the vGPU signature {@code VF}
 * @param hostDriverVersion the hypervisor's vGPU driver version ({@code 550.54.16}); null when not a vGPU or unreadable
 * @param hostDriverBranch  the hypervisor's vGPU driver branch ({@code r550_40}); null likewise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Vgpu(boolean present, String hostDriverVersion, String hostDriverBranch) {

    /** A GPU whose full config space was read and carries no vGPU signature. */
    public static final Vgpu NONE = new Vgpu(false, null, null);
}

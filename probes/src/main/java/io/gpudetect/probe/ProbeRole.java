package io.gpudetect.probe;

/**
 * What a probe can describe, which decides when a pass on a live host needs to consult it (see
 * {@code io.gpudetect.inventory.ProbePlan}).
 */
public enum ProbeRole {
    /** The PCI bus: which GPU functions exist and which driver each is bound to. Always read first. */
    BUS,
    /** NVIDIA's management library, in process: consulted when an NVIDIA GPU is bound to the nvidia driver. */
    NVIDIA_LIBRARY,
    /** An NVIDIA tool: consulted only for NVIDIA GPUs the library did not describe. */
    NVIDIA_TOOL,
    /** An AMD tool: consulted in turn, until one has described every AMD GPU bound to amdgpu. */
    AMD_TOOL,
    /**
     * OpenCL: consulted only for GPUs nothing else names, because loading an OpenCL driver initialises the
     * tenants' GPUs (NVIDIA's creates CUDA contexts).
     */
    OPENCL
}

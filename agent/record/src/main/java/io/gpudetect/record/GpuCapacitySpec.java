package io.gpudetect.record;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Map;

/**
 * What the node offers. Everything here changes only when the hardware, the node's allocatable
 * resources, the pods using GPUs or the agent's version change, so an idle node's record is never written.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuCapacitySpec(
        @JsonPropertyDescription("Every GPU on the node (emulated display adapters left out), sorted by PCI address.")
        List<GpuEntry> gpus,
        @JsonPropertyDescription("Number of GPUs per vendor, model, memory and interface.")
        List<ModelTotal> totals,
        @JsonPropertyDescription("MIG instances and AMD partitions that exist now, per GPU.")
        List<Slice> slices,
        @JsonPropertyDescription("GPU extended resources the node advertises (status.allocatable): nvidia.com/gpu, amd.com/gpu, gpu.intel.com/*.")
        Map<String, Long> allocatable,
        @JsonPropertyDescription("GPU extended resources requested by the non-terminated pods bound to this node.")
        Map<String, Long> requested,
        @JsonPropertyDescription("CPU, memory, OS and kernel of the host; absent when the pass replayed a recorded bundle.")
        HostFacts host,
        @JsonPropertyDescription("Whether /sys/class/drm exists on the host, where Akash's inventory operator starts (false: no DRM driver is loaded and the operator sees no GPU at all); absent when the agent could not tell (a bundle recorded without it), and then every GPU's drmCards is absent too.")
        Boolean sysClassDrm,
        @JsonPropertyDescription("Version of the gpu-detect agent that wrote this record.")
        String agentVersion) {

    public GpuCapacitySpec {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        totals = totals == null ? List.of() : List.copyOf(totals);
        slices = slices == null ? List.of() : List.copyOf(slices);
        // Null, not empty, when a hand-written record does not say: "not known" differs from "none advertised".
        allocatable = allocatable == null ? null : Map.copyOf(allocatable);
        requested = requested == null ? Map.of() : Map.copyOf(requested);
    }

    /** One GPU, in the vocabulary of the labels and of Akash's SDL. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GpuEntry(String vendor, String model, String name, Long memoryMiB, Integer memoryGi,
                           @JsonProperty("interface") @JsonPropertyDescription("pcie, sxm, oam or integrated.") String interfaceType,
                           String pciAddress, String uuid,
                           @JsonPropertyDescription("ok, degraded or lost; absent when no tool said.") String health,
                           @JsonPropertyDescription("True when MIG (or an AMD partition mode) is on.") Boolean partitioned,
                           @JsonPropertyDescription("PCI vendor id, 4 lower-case hex digits (10de); Akash's GPU table is keyed by it and the device id.") String pciVendorId,
                           @JsonPropertyDescription("PCI device id, 4 lower-case hex digits (2684).") String pciDeviceId,
                           @JsonPropertyDescription("PCI subsystem vendor id: the board maker (1458).") String pciSubsystemVendorId,
                           @JsonPropertyDescription("PCI subsystem device id.") String pciSubsystemDeviceId,
                           @JsonPropertyDescription("The DRM card nodes (card0 for /sys/class/drm/card0) whose device is this GPU, as Akash's inventory operator finds them; empty when it has none (its DRM driver, such as nvidia_drm, is not loaded: the operator skips the GPU); absent when not known.")
                           List<String> drmCards) {

        public GpuEntry {
            // Null, not empty, when the writer could not tell: "not known" differs from "no DRM node".
            drmCards = drmCards == null ? null : List.copyOf(drmCards);
        }
    }

    /** How many GPUs share one vendor, model, memory size and interface. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ModelTotal(String vendor, String model, Integer memoryGi, @JsonProperty("interface") String interfaceType, int count) {
    }

    /** One MIG instance or partition of a GPU. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Slice(String gpuPciAddress, String gpuUuid, String kind, String profile, Integer gpuInstanceId,
                       Integer computeInstanceId, Long memoryMiB, Integer multiprocessors, String uuid) {
    }

    /** The host facts a bid needs. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HostFacts(String cpuModel, Integer cpuCores, Integer cpuThreads, Long memoryBytes, String os,
                            String kernel) {
    }
}

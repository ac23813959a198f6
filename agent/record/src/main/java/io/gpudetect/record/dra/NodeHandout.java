package io.gpudetect.record.dra;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * How the node's GPUs are handed out to pods: by a device plugin (an extended resource in the Node's
 * allocatable, such as {@code nvidia.com/gpu}), by a DRA driver (devices in the node's ResourceSlices, given
 * to pods through ResourceClaims), by both, or not at all. Made by {@link Handouts#of}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeHandout(
        @JsonPropertyDescription("devicePlugin, dra, both (some GPU is served by a device plugin and some by a DRA driver, or one GPU by both), or none.")
        String mode,
        @JsonPropertyDescription("Per detected GPU, sorted by PCI address: who hands it out and whether it is allocated.")
        List<GpuHandout> gpus,
        @JsonPropertyDescription("Per DRA driver: the GPUs it publishes and how many of them are allocated (a GPU with any allocated device, a MIG device for one, counts as allocated); each GPU counted once.")
        List<DraTotal> draTotals,
        @JsonPropertyDescription("Devices of GPU DRA drivers that no detected GPU matched (by PCI bus id, UUID or shared counter set).")
        List<DraDeviceRef> unmatched,
        @JsonPropertyDescription("Why the DRA part may be incomplete: a pool whose slices were not all seen (fewer slices of its newest generation than resourceSliceCount), a claim that could not be read.")
        List<String> problems) {

    public NodeHandout {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        draTotals = draTotals == null ? List.of() : List.copyOf(draTotals);
        unmatched = unmatched == null ? List.of() : List.copyOf(unmatched);
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    /** One GPU: the device-plugin resource that covers it, the DRA devices that are it or part of it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record GpuHandout(
            String pciAddress, String uuid,
            @JsonPropertyDescription("devicePlugin, dra, both or none.")
            String by,
            @JsonPropertyDescription("The device plugin's extended resource for this GPU's vendor, when the node advertises it (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 ...).")
            String devicePlugin,
            @JsonPropertyDescription("The DRA devices that are this GPU or one of its partitions (MIG devices, AMD partitions).")
            List<DraDeviceRef> dra,
            @JsonPropertyDescription("True when a ResourceClaim of a pod on this node holds this GPU or a device of it; absent when only a device plugin serves it (which GPU a device plugin gave to a pod is not in the API: count the node's requested resources instead).")
            Boolean allocated) {

        public GpuHandout {
            dra = dra == null ? List.of() : List.copyOf(dra);
        }
    }

    /** A DRA device, as a claim's allocation result names it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DraDeviceRef(
            String driver, String pool, String device,
            @JsonPropertyDescription("The driver's type attribute: gpu or mig (NVIDIA), amdgpu or amdgpu-partition (AMD), gpu or vf (Intel).")
            String type,
            @JsonPropertyDescription("Which attribute tied the device to its GPU: resource.kubernetes.io/pciBusID, parentUUID, uuid, pciAddr, parentPciAddr, pciAddress or counterSet.")
            String matchedBy,
            boolean allocated,
            @JsonPropertyDescription("namespace/name of the claims that hold it.")
            List<String> claims) {

        public DraDeviceRef {
            claims = claims == null ? List.of() : List.copyOf(claims);
        }
    }

    /** One DRA driver's GPUs on the node. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DraTotal(String driver, int gpus, int allocatedGpus, int devices, int allocatedDevices) {
    }
}

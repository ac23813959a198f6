package io.gpudetect.record.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Handouts#of} alone: devices as the three GPU DRA drivers publish them (attribute names from their
 * sources, cited at each device), device-plugin resources, and claims' allocations.
 */
class HandoutsTest {

    static final Gpu H100_0 = gpu(Vendor.NVIDIA, "0000:1b:00.0", "GPU-5a1f6f2e-0b8e-4c6e-9d5e-3f0c1b2a4d10");
    static final Gpu H100_1 = gpu(Vendor.NVIDIA, "0000:43:00.0", "GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55");
    static final Gpu MI300X = gpu(Vendor.AMD, "0000:c1:00.0", null);
    static final Gpu FLEX170 = gpu(Vendor.INTEL, "0000:03:00.0", null);

    static Gpu gpu(Vendor vendor, String address, String uuid) {
        return Gpu.builder("test").vendor(vendor).pciAddress(PciAddress.of(address)).uuid(uuid).build();
    }

    static DraSlice slice(String driver, String pool, DraDevice... devices) {
        return new DraSlice(driver + "-" + pool, driver, new DraSlice.Pool(pool, 1, 1), List.of(devices), List.of());
    }

    /** NVIDIA k8s-dra-driver-gpu, cmd/gpu-kubelet-plugin/deviceinfo.go GpuInfo.Attributes: type gpu, uuid, pciBusID. */
    static DraDevice nvidiaGpu(String name, Gpu g) {
        return new DraDevice("gpu.nvidia.com", "node-1", name, Map.of("type", "gpu", "uuid", g.uuid(),
                "productName", "NVIDIA H100 80GB HBM3", "resource.kubernetes.io/pciBusID", g.pciAddress().toString()),
                Map.of("memory", "81559Mi"), List.of("gpu-0-counter-set"));
    }

    /** NVIDIA mig.go CommonAttributesMig: type mig, parentUUID, profile, the parent's pciBusID; its own uuid. */
    static DraDevice nvidiaMig(String name, Gpu parent, boolean withIds) {
        Map<String, String> attributes = withIds
                ? Map.of("type", "mig", "uuid", "MIG-7f3e2a10-4b6c-5d8e-9f01-a2b3c4d5e6f7", "parentUUID", parent.uuid(),
                "profile", "1g.10gb", "resource.kubernetes.io/pciBusID", parent.pciAddress().toString())
                : Map.of("type", "mig", "profile", "1g.10gb");
        return new DraDevice("gpu.nvidia.com", "node-1", name, attributes, Map.of("multiprocessors", "16"),
                List.of("gpu-0-counter-set"));
    }

    @Test
    void nvidiaGpusAndMigDevicesMapToTheirGpuAndAClaimMarksItAllocated() {
        NodeHandout h = Handouts.of(List.of(H100_1, H100_0), Map.of(),
                List.of(slice("gpu.nvidia.com", "node-1", nvidiaGpu("gpu-0", H100_0),
                        nvidiaMig("gpu-0-mig-1g10gb-19-0", H100_0, true), nvidiaGpu("gpu-1", H100_1))),
                List.of(new DraAllocation("gpu.nvidia.com", "node-1", "gpu-0-mig-1g10gb-19-0", "team-a/train-gpu-x7k2p")),
                List.of());
        assertEquals("dra", h.mode());
        assertEquals(2, h.gpus().size());
        NodeHandout.GpuHandout first = h.gpus().get(0);
        assertEquals("0000:1b:00.0", first.pciAddress(), "sorted by PCI address");
        assertEquals("dra", first.by());
        assertNull(first.devicePlugin());
        assertEquals(List.of("gpu-0", "gpu-0-mig-1g10gb-19-0"), first.dra().stream().map(NodeHandout.DraDeviceRef::device).toList());
        assertEquals("parentUUID", first.dra().get(1).matchedBy(), "a MIG device goes to its parent, not by its own uuid");
        assertEquals(List.of("team-a/train-gpu-x7k2p"), first.dra().get(1).claims());
        assertEquals(Boolean.TRUE, first.allocated(), "a GPU with an allocated MIG device is in use");
        assertEquals(Boolean.FALSE, h.gpus().get(1).allocated());
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.nvidia.com", 2, 1, 3, 1)), h.draTotals());
        assertTrue(h.unmatched().isEmpty() && h.problems().isEmpty());
    }

    @Test
    void aPartitionThatNamesNoGpuBelongsToTheGpuWhoseCounterSetItDrawsFrom() {
        NodeHandout h = Handouts.of(List.of(H100_0), Map.of(), List.of(slice("gpu.nvidia.com", "node-1",
                nvidiaGpu("gpu-0", H100_0), nvidiaMig("gpu-0-mig-1g10gb-19-0", H100_0, false))), List.of(), List.of());
        assertEquals(List.of("resource.kubernetes.io/pciBusID", "counterSet"),
                h.gpus().get(0).dra().stream().map(NodeHandout.DraDeviceRef::matchedBy).toList());
    }

    @Test
    void amdByPciAddrAndPartitionsByParentPciAddr() {
        // ROCm/k8s-gpu-dra-driver cmd/gpu-kubeletplugin/deviceinfo.go: no uuid; pciAddr on a GPU, parentPciAddr on a partition.
        DraDevice whole = new DraDevice("gpu.amd.com", "node-2", "gpu-1-129", Map.of("type", "amdgpu",
                "pciAddr", "0000:c1:00.0", "productName", "AMD_Instinct_MI300X_OAM"), Map.of("memory", "196592Mi"), List.of());
        DraDevice partition = new DraDevice("gpu.amd.com", "node-2", "gpu-2-130", Map.of("type", "amdgpu-partition",
                "parentPciAddr", "0000:c1:00.0", "partitionProfile", "cpx_nps1"), Map.of("memory", "24574Mi"), List.of());
        NodeHandout h = Handouts.of(List.of(MI300X), Map.of(), List.of(slice("gpu.amd.com", "node-2", whole, partition)),
                List.of(), List.of());
        assertEquals(List.of("pciAddr", "parentPciAddr"), h.gpus().get(0).dra().stream().map(NodeHandout.DraDeviceRef::matchedBy).toList());
        assertEquals(Boolean.FALSE, h.gpus().get(0).allocated());
    }

    @Test
    void devicePluginOnlyLeavesAllocatedUnknownPerGpu() {
        NodeHandout h = Handouts.of(List.of(MI300X), Map.of("amd.com/gpu", 1L), List.of(), List.of(), List.of());
        assertEquals("devicePlugin", h.mode());
        assertEquals("amd.com/gpu", h.gpus().get(0).devicePlugin());
        assertNull(h.gpus().get(0).allocated(), "which GPU a device plugin gave out is not in the API");
        assertTrue(h.draTotals().isEmpty());
    }

    @Test
    void aNodeServedByBothIsReportedAsBothAndEachGpuCountedOnce() {
        // Intel intel-resource-drivers-for-kubernetes cmd/kubelet-gpu-plugin/node_state.go: name is the
        // rfc1123 address plus the PCI id, pciBusID (and the deprecated pciAddress) the GPU's own address.
        DraDevice flex = new DraDevice("gpu.intel.com", "node-3", "0000-03-00-0-0x56c0", Map.of("type", "gpu",
                "model", "Flex 170", "pciId", "0x56c0", "pciAddress", "0000:03:00.0",
                "resource.kubernetes.io/pciBusID", "0000:03:00.0"), Map.of("memory", "16256Mi", "millicores", "1k"), List.of());
        NodeHandout h = Handouts.of(List.of(H100_0, FLEX170), Map.of("nvidia.com/gpu", 1L, "gpu.intel.com/millicores", 1000L),
                List.of(slice("gpu.intel.com", "node-3", flex)), List.of(), List.of());
        assertEquals("both", h.mode());
        assertEquals(List.of("dra", "devicePlugin"), h.gpus().stream().map(NodeHandout.GpuHandout::by).toList());
        assertNull(h.gpus().get(0).devicePlugin(), "millicores are shares of an Intel GPU, not a device plugin's GPU");
        assertEquals("nvidia.com/gpu", h.gpus().get(1).devicePlugin());
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.intel.com", 1, 0, 1, 0)), h.draTotals());

        NodeHandout one = Handouts.of(List.of(H100_0), Map.of("nvidia.com/gpu", 1L),
                List.of(slice("gpu.nvidia.com", "node-1", nvidiaGpu("gpu-0", H100_0))), List.of(), List.of());
        assertEquals("both", one.gpus().get(0).by(), "one GPU offered by a device plugin and a DRA driver");
        assertEquals(1, one.gpus().size());
    }

    @Test
    void unmatchedGpuDevicesAreListedAndOtherDriversIgnored() {
        DraDevice stranger = new DraDevice("gpu.nvidia.com", "node-1", "gpu-7", Map.of("type", "gpu",
                "uuid", "GPU-ffffffff-0000-0000-0000-000000000000"), Map.of(), List.of());
        DraDevice nic = new DraDevice("dra.net", "node-1", "eth1", Map.of("resource.kubernetes.io/pciBusID", "0000:1b:00.0"),
                Map.of(), List.of());
        NodeHandout h = Handouts.of(List.of(), Map.of(), List.of(slice("gpu.nvidia.com", "node-1", stranger),
                slice("dra.net", "node-1", nic)), List.of(), List.of());
        assertEquals(List.of("gpu-7"), h.unmatched().stream().map(NodeHandout.DraDeviceRef::device).toList());
        assertEquals("dra", h.mode());
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.nvidia.com", 0, 0, 1, 0)), h.draTotals());
    }

    @Test
    void onlyTheNewestGenerationOfAPoolCountsAndAMissingSliceIsAProblem() {
        DraSlice old = new DraSlice("a", "gpu.nvidia.com", new DraSlice.Pool("node-1", 1, 1),
                List.of(nvidiaGpu("gpu-0", H100_0), nvidiaGpu("gpu-1", H100_1)), List.of());
        DraSlice current = new DraSlice("b", "gpu.nvidia.com", new DraSlice.Pool("node-1", 2, 2),
                List.of(nvidiaGpu("gpu-0", H100_0)), List.of());
        NodeHandout h = Handouts.of(List.of(H100_0, H100_1), Map.of(), List.of(old, current), List.of(),
                List.of("claim team-a/x not readable (HTTP 403)"));
        assertEquals(List.of("dra", "none"), h.gpus().stream().map(NodeHandout.GpuHandout::by).toList());
        assertEquals(List.of("gpu.nvidia.com/node-1: 1 of 2 slices of generation 2", "claim team-a/x not readable (HTTP 403)"),
                h.problems());
    }
}

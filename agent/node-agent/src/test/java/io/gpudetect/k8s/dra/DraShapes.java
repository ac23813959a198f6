package io.gpudetect.k8s.dra;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;

/**
 * ResourceSlices, ResourceClaims and pods written by hand in the shapes the GPU DRA drivers and Kubernetes
 * publish them, for tests on fabric8's mock server and on a real API server. Where each shape comes from:
 * <ul>
 * <li>NVIDIA ({@code gpu.nvidia.com}): NVIDIA/k8s-dra-driver-gpu {@code cmd/gpu-kubelet-plugin/deviceinfo.go}
 * ({@code GpuInfo.Attributes}: type gpu, uuid, productName, brand, architecture, cudaComputeCapability,
 * driverVersion, cudaDriverVersion, the standard {@code resource.kubernetes.io/pciBusID} and {@code pcieRoot};
 * capacity memory; device name {@code gpu-<minor>}) and {@code mig.go} ({@code CommonAttributesMig}: type mig,
 * parentUUID, profile, the parent's bus id; name {@code gpu-<minor>-mig-<profile>-<profileId>-<start>});
 * <li>AMD ({@code gpu.amd.com}): ROCm/k8s-gpu-dra-driver {@code cmd/gpu-kubeletplugin/deviceinfo.go} and
 * {@code docs/demo.md} (type amdgpu, pciAddr, cardIndex, renderIndex, deviceID (a unique id, not the PCI id),
 * family, productName, driverVersion, partitionProfile; capacity memory, computeUnits, simdUnits; name
 * {@code gpu-<card>-<render>}; pool named after the node);
 * <li>Intel ({@code gpu.intel.com}): intel/intel-resource-drivers-for-kubernetes
 * {@code cmd/kubelet-gpu-plugin/node_state.go} (model, family, driver, sriov, type gpu, pciId, pciAddress,
 * health, pciBusID, pcieRoot; capacity memory, millicores; name {@code <rfc1123 address>-<pci id>});
 * <li>the slice and claim envelopes: k8s.io/api {@code resource/v1/types.go} and {@code v1beta1/types.go}
 * (v1beta1 nests a device under {@code basic}).
 * </ul>
 */
public final class DraShapes {

    private DraShapes() {
    }

    public static final String H100_UUID = "GPU-5a1f6f2e-0b8e-4c6e-9d5e-3f0c1b2a4d10";
    /** The UUID of the second H100 of {@link #nvidiaSliceV1} (gpu-1, 0000:43:00.0). */
    public static final String H100_1_UUID = "GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55";

    /** An H100 SXM5 80GB as gpu-detect describes it (10de:2330): what NVIDIA's slice lists at {@code address}. */
    public static Gpu h100(String address, String uuid) {
        return Gpu.builder("test").vendor(Vendor.NVIDIA).name("NVIDIA H100 80GB HBM3").model("h100").memoryGi(80)
                .interfaceType(GpuInterface.SXM).pciAddress(PciAddress.of(address)).uuid(uuid).pciVendorId("10de")
                .pciDeviceId("2330").build();
    }

    /** An Instinct MI300X (1002:74a1), as {@link #amdSliceV1beta1} lists one at 0000:c1:00.0. */
    public static Gpu mi300x(String address) {
        return Gpu.builder("test").vendor(Vendor.AMD).name("AMD Instinct MI300X").model("mi300x").memoryGi(192)
                .interfaceType(GpuInterface.OAM).pciAddress(PciAddress.of(address)).pciVendorId("1002")
                .pciDeviceId("74a1").build();
    }

    /** The Data Center GPU Flex 170 (8086:56c0) of {@link #intelSliceV1}, at 0000:03:00.0. */
    public static Gpu flex170() {
        return Gpu.builder("test").vendor(Vendor.INTEL).name("Intel Data Center GPU Flex 170").model("flex170")
                .memoryGi(16).interfaceType(GpuInterface.PCIE).pciAddress(PciAddress.of("0000:03:00.0"))
                .pciVendorId("8086").pciDeviceId("56c0").build();
    }

    /** Akash's table format ({@code provider-configs/devices/pcie/gpus.json}) with the H100 and MI300X above. */
    public static final String AKASH_TABLE = """
            {"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}},
             "1002": {"name": "amd", "devices": {"74a1": {"name": "mi300x", "interface": "OAM", "memory_size": "192Gi"}}}}
            """;

    /** NVIDIA, v1: one H100 whole, one H100 with a MIG device. */
    public static String nvidiaSliceV1(String node) {
        return """
                apiVersion: resource.k8s.io/v1
                kind: ResourceSlice
                metadata: {name: %1$s-gpu.nvidia.com-x8q2c}
                spec:
                  nodeName: %1$s
                  driver: gpu.nvidia.com
                  pool: {name: %1$s, generation: 1, resourceSliceCount: 1}
                  devices:
                  - name: gpu-0
                    attributes:
                      type: {string: gpu}
                      uuid: {string: %2$s}
                      productName: {string: NVIDIA H100 80GB HBM3}
                      brand: {string: Nvidia}
                      architecture: {string: Hopper}
                      cudaComputeCapability: {version: 9.0.0}
                      driverVersion: {version: 570.124.6}
                      cudaDriverVersion: {version: 12.8.0}
                      resource.kubernetes.io/pciBusID: {string: "0000:1b:00.0"}
                      resource.kubernetes.io/pcieRoot: {string: pci0000:15}
                    capacity:
                      memory: {value: 81559Mi}
                  - name: gpu-1
                    attributes:
                      type: {string: gpu}
                      uuid: {string: GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55}
                      productName: {string: NVIDIA H100 80GB HBM3}
                      resource.kubernetes.io/pciBusID: {string: "0000:43:00.0"}
                    capacity:
                      memory: {value: 81559Mi}
                  - name: gpu-1-mig-1g10gb-19-0
                    attributes:
                      type: {string: mig}
                      uuid: {string: MIG-7f3e2a10-4b6c-5d8e-9f01-a2b3c4d5e6f7}
                      parentUUID: {string: GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55}
                      profile: {string: 1g.10gb}
                      productName: {string: NVIDIA H100 80GB HBM3}
                      resource.kubernetes.io/pciBusID: {string: "0000:43:00.0"}
                    capacity:
                      multiprocessors: {value: "16"}
                      memorySlice0: {value: "1"}
                """.formatted(node, H100_UUID);
    }

    /** AMD, v1beta1 (a device's description under {@code basic}): one MI300X. */
    public static String amdSliceV1beta1(String node) {
        return """
                apiVersion: resource.k8s.io/v1beta1
                kind: ResourceSlice
                metadata: {name: %1$s-gpu.amd.com-7zkq4}
                spec:
                  nodeName: %1$s
                  driver: gpu.amd.com
                  pool: {name: %1$s, generation: 1, resourceSliceCount: 1}
                  devices:
                  - name: gpu-1-129
                    basic:
                      attributes:
                        type: {string: amdgpu}
                        pciAddr: {string: "0000:c1:00.0"}
                        cardIndex: {int: 1}
                        renderIndex: {int: 129}
                        deviceID: {string: "994913940318892495"}
                        family: {string: AI}
                        productName: {string: AMD_Instinct_MI300X_OAM}
                        driverVersion: {version: 6.12.12}
                        partitionProfile: {string: spx_nps1}
                      capacity:
                        memory: {value: 196592Mi}
                        computeUnits: {value: "304"}
                        simdUnits: {value: "1216"}
                """.formatted(node);
    }

    /** Intel, v1: one Data Center GPU Flex 170. */
    public static String intelSliceV1(String node) {
        return """
                apiVersion: resource.k8s.io/v1
                kind: ResourceSlice
                metadata: {name: %1$s-gpu.intel.com-m4d9s}
                spec:
                  nodeName: %1$s
                  driver: gpu.intel.com
                  pool: {name: %1$s, generation: 1, resourceSliceCount: 1}
                  devices:
                  - name: 0000-03-00-0-0x56c0
                    attributes:
                      model: {string: Flex 170}
                      family: {string: Data Center Flex}
                      driver: {string: i915}
                      sriov: {bool: true}
                      type: {string: gpu}
                      pciId: {string: "0x56c0"}
                      pciAddress: {string: "0000:03:00.0"}
                      health: {string: Healthy}
                      resource.kubernetes.io/pciBusID: {string: "0000:03:00.0"}
                      resource.kubernetes.io/pcieRoot: {string: pci0000:00}
                    capacity:
                      memory: {value: 16256Mi}
                      millicores: {value: 1k}
                """.formatted(node);
    }

    /**
     * A claim made from a template for a pod, allocated one device. A request names its device class under
     * {@code exactly} in v1beta2 and v1, directly in v1beta1.
     */
    public static String claim(String apiVersion, String namespace, String name, String driver, String pool, String device) {
        String request = apiVersion.endsWith("/v1beta1") ? "deviceClassName: %4$s" : "exactly: {deviceClassName: %4$s}";
        return ("""
                apiVersion: %1$s
                kind: ResourceClaim
                metadata: {name: %3$s, namespace: %2$s}
                spec:
                  devices:
                    requests:
                    - name: gpu
                      REQUEST
                status:
                  allocation:
                    devices:
                      results:
                      - {request: gpu, driver: %4$s, pool: %5$s, device: %6$s}
                    nodeSelector:
                      nodeSelectorTerms:
                      - matchFields:
                        - {key: metadata.name, operator: In, values: [%5$s]}
                """).replace("REQUEST", request).formatted(apiVersion, namespace, name, driver, pool, device);
    }

    /** A running pod on {@code node} holding the claim made for it from template {@code gpu-template}. */
    public static String podWithClaim(String namespace, String name, String node, String claim) {
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: %2$s, namespace: %1$s, uid: uid-%2$s}
                spec:
                  nodeName: %3$s
                  containers:
                  - name: main
                    image: registry.example/train:1
                    resources:
                      claims: [{name: gpu}]
                  resourceClaims:
                  - {name: gpu, resourceClaimTemplateName: gpu-template}
                status:
                  phase: Running
                  resourceClaimStatuses:
                  - {name: gpu, resourceClaimName: %4$s}
                """.formatted(namespace, name, node, claim);
    }

    /** The discovery document of {@code resource.k8s.io} serving {@code versions}, the first preferred. */
    public static String apiGroup(String... versions) {
        StringBuilder list = new StringBuilder();
        for (String v : versions) {
            list.append("{\"groupVersion\":\"resource.k8s.io/").append(v).append("\",\"version\":\"").append(v).append("\"},");
        }
        return "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",\"name\":\"resource.k8s.io\",\"versions\":["
                + list.substring(0, list.length() - 1) + "],\"preferredVersion\":{\"groupVersion\":\"resource.k8s.io/"
                + versions[0] + "\",\"version\":\"" + versions[0] + "\"}}";
    }
}

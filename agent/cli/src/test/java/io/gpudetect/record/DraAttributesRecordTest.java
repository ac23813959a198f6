package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.model.PcieLink;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The record's GPU entry for the H100 recording, every new field checked against the raw files, and its
 * {@code attributes} under the names and types NVIDIA's DRA driver and Kubernetes publish
 * ({@code GpuInfo.GetDevice}: versions as semantic versions, {@code 570.124.06} as {@code 570.124.6}).
 */
class DraAttributesRecordTest {

    @Test
    void theH100sEntryAndItsDraAttributes() throws Exception {
        GpuCapacitySpec.GpuEntry h100 = BundleRecords.gpu(BundleRecords.spec(BundleRecords.h100()), "0000:00:06.0");

        // nvidia-smi.xml: driver_version 580.159.04, cuda_version 13.0, vbios_version 96.00.DA.00.0C;
        // nvml.json: cudaComputeCapability 9.0, architecture Hopper (9), name NVIDIA H100 80GB HBM3.
        assertEquals("580.159.04", h100.driverVersion());
        assertEquals("13.0", h100.runtimeVersion());
        assertEquals("9.0", h100.computeCapability());
        assertEquals("Hopper", h100.architecture());
        assertEquals("96.00.DA.00.0C", h100.vbiosVersion());
        assertEquals(new PcieLink(null, 5, 16, 16), h100.pcieLink());

        // sys/bus/pci/devices/0000:00:06.0 links to ../../../devices/pci0000:00/0000:00:06.0: root pci0000:00.
        // No numaNode: the recording has no numa_node file.
        Map<String, DeviceAttribute> expected = new TreeMap<>(Map.of(
                "resource.kubernetes.io/pciBusID", DeviceAttribute.ofString("0000:00:06.0"),
                "resource.kubernetes.io/pcieRoot", DeviceAttribute.ofString("pci0000:00"),
                "uuid", DeviceAttribute.ofString("GPU-97825330-787f-210a-2249-0d0ea2fef153"),
                "productName", DeviceAttribute.ofString("NVIDIA H100 80GB HBM3"),
                "architecture", DeviceAttribute.ofString("Hopper"),
                "cudaComputeCapability", DeviceAttribute.ofVersion("9.0.0"),
                "driverVersion", DeviceAttribute.ofVersion("580.159.4"),
                "cudaDriverVersion", DeviceAttribute.ofVersion("13.0.0")));
        assertEquals(expected, h100.attributes());
    }

    @Test
    void theJsonHoldsTheAttributesAsADraDeviceDoesAndReadingItBackDerivesThemAgain() throws Exception {
        GpuCapacitySpec spec = BundleRecords.spec(BundleRecords.h100());
        String json = BundleRecords.json("n", spec);
        JsonNode attributes = new ObjectMapper().readTree(json).get("spec").get("gpus").get(0).get("attributes");
        assertEquals("580.159.4", attributes.get("driverVersion").get("version").asText(), json);
        assertEquals("0000:00:06.0", attributes.get("resource.kubernetes.io/pciBusID").get("string").asText());

        GpuCapacity back = new ObjectMapper().readValue(json, GpuCapacity.class);
        assertEquals(spec.gpus(), back.getSpec().gpus());
        assertEquals(spec.gpus().get(0).attributes(), back.getSpec().gpus().get(0).attributes());
    }

    @Test
    void versionsBecomeSemanticVersionsAndOtherTextIsLeftOut() {
        assertEquals("570.124.6", GpuAttributes.semver("570.124.06"));
        assertEquals("12.8.0", GpuAttributes.semver("12.8"));
        assertEquals("6.0.0", GpuAttributes.semver("6"));
        assertEquals(null, GpuAttributes.semver("6.8.0-45-generic"));
        assertEquals(null, GpuAttributes.semver("1.2.3.4"));
    }

    @Test
    void theCudaNamesAreNvidiasOnly() {
        var amd = io.gpudetect.model.Gpu.builder("amd-smi").vendor(io.gpudetect.model.Vendor.AMD)
                .driverVersion("6.12.12").runtimeVersion("6.4.1").computeCapability("9.4").build();
        assertEquals(Map.of("driverVersion", DeviceAttribute.ofVersion("6.12.12")), GpuAttributes.of(amd),
                "ROCm's version is not cudaDriverVersion");
    }
}

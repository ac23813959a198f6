package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NUMA node and PCIe root per GPU in the capacity record, in its fields and under Kubernetes' standard DRA
 * attribute names ({@code resource.kubernetes.io/numaNode}, an int; {@code resource.kubernetes.io/pcieRoot}, a string).
 */
class NumaRecordTest {

    @TempDir
    Path dir;

    @Test
    void aGpuOnNode1UnderRootPci0000_00() throws Exception {
        Path bundle = BundleRecords.intelIgpuBesideNvidia(dir.resolve("bundle"));
        Files.writeString(bundle.resolve(BundleRecords.NVIDIA_FUNCTION).resolve("numa_node"), "1\n");

        GpuCapacitySpec.GpuEntry nvidia = BundleRecords.gpu(BundleRecords.spec(bundle), "0000:01:00.0");

        assertEquals(1, nvidia.numaNode());
        // The function's path under /sys/devices starts with pci0000:00.
        assertEquals("pci0000:00", nvidia.pcieRoot());
        assertEquals(DeviceAttribute.ofInt(1), nvidia.attributes().get("resource.kubernetes.io/numaNode"));
        assertEquals(DeviceAttribute.ofString("pci0000:00"), nvidia.attributes().get("resource.kubernetes.io/pcieRoot"));
        assertEquals(DeviceAttribute.ofString("0000:01:00.0"), nvidia.attributes().get("resource.kubernetes.io/pciBusID"));
    }

    @Test
    void aHostWithoutNumaSaysMinusOneAndTheRecordSaysNothing() throws Exception {
        Path bundle = BundleRecords.intelIgpuBesideNvidia(dir.resolve("bundle"));
        Files.writeString(bundle.resolve(BundleRecords.NVIDIA_FUNCTION).resolve("numa_node"), "-1\n");

        GpuCapacitySpec spec = BundleRecords.spec(bundle);

        assertNull(BundleRecords.gpu(spec, "0000:01:00.0").numaNode());
        assertFalse(BundleRecords.gpu(spec, "0000:01:00.0").attributes().containsKey("resource.kubernetes.io/numaNode"));
        assertFalse(BundleRecords.json("n", spec).contains("numaNode"));
    }

    @Test
    void theH100VmRecordingHasNoNumaFileAndSoNoNode() throws Exception {
        // Its sys/ holds no numa_node (recorded before the probe read it). Its bus/pci/devices entries are committed
        // as plain files holding the link's text, not links, so no root is read from it either.
        GpuCapacitySpec.GpuEntry h100 = BundleRecords.gpu(BundleRecords.spec(BundleRecords.h100()), "0000:00:06.0");
        assertNull(h100.numaNode());
        assertFalse(h100.attributes().containsKey("resource.kubernetes.io/numaNode"));
    }
}

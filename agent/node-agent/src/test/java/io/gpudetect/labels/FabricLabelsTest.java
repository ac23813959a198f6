package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The fabric's few summary labels under gpu-detect.io, never one per device or port. */
class FabricLabelsTest {

    private static Fabric.RdmaDevice nic(String name, String address, Fabric.Kind kind, String state, double gbps) {
        return new Fabric.RdmaDevice(name, address, "mlx5_core", 0, "pci0000:15",
                List.of(new Fabric.RdmaPort(1, kind, null, state, null, gbps, null)));
    }

    private static Map<String, String> fabricLabels(Fabric fabric, String... gpus) {
        List<Gpu> list = new java.util.ArrayList<>();
        for (String g : gpus) {
            list.add(Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of(g)).build());
        }
        Inventory inv = new Inventory("test", list, List.of(), List.of(), null, List.of(), null, fabric);
        Map<String, String> out = new TreeMap<>();
        new GpuDetectProfile().labels(inv).forEach((k, v) -> {
            if (k.startsWith("gpu-detect.io/fabric.")) {
                out.put(k.substring("gpu-detect.io/".length()), v);
            }
        });
        return out;
    }

    @Test
    void eightNicsOfTwoKindsAreFourKeys() {
        List<Fabric.RdmaDevice> nics = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            nics.add(nic("mlx5_" + i, "0000:1" + i + ":00.0", Fabric.Kind.INFINIBAND, "active", 400));
        }
        nics.add(nic("mlx5_6", "0000:20:00.0", Fabric.Kind.ROCE, "active", 200));
        nics.add(nic("mlx5_7", "0000:21:00.0", Fabric.Kind.ROCE, "down", 800));
        Fabric f = new Fabric(nics, new Fabric.GpuDirectRdma(Fabric.GpuDirectRdma.Verdict.CAN_WORK, List.of()), List.of(
                new Fabric.NearestNic("0000:18:00.0", "mlx5_0", Fabric.PcieDistance.PIX),
                new Fabric.NearestNic("0000:98:00.0", "mlx5_1", Fabric.PcieDistance.SYS)));

        assertEquals(Map.of("fabric.kind", "infiniband_roce", "fabric.rate-gbps.max", "400",
                "fabric.gpudirect-rdma", "can-work", "fabric.nic-distance.max", "sys"),
                fabricLabels(f, "0000:18:00.0", "0000:98:00.0"));
    }

    @Test
    void aGpuWithoutANearestNicLeavesTheDistanceOut() {
        Fabric f = new Fabric(List.of(nic("mlx5_0", "0000:19:00.0", Fabric.Kind.ROCE, "active", 2.5)), null,
                List.of(new Fabric.NearestNic("0000:18:00.0", "mlx5_0", Fabric.PcieDistance.PIX)));
        assertEquals(Map.of("fabric.kind", "roce", "fabric.rate-gbps.max", "2.5"), fabricLabels(f, "0000:18:00.0", "0000:98:00.0"));
        assertEquals("pix", fabricLabels(f, "0000:18:00.0").get("fabric.nic-distance.max"));
    }

    @Test
    void noRdmaDeviceOnThePciBusOrAFabricNotKnownIsNoKey() {
        assertEquals(Map.of(), fabricLabels(new Fabric(List.of(), null, List.of()), "0000:18:00.0"));
        assertEquals(Map.of(), fabricLabels(new Fabric(List.of(nic("rxe0", null, Fabric.Kind.ROCE, "active", 10)), null,
                List.of()), "0000:18:00.0"), "software RoCE is no fabric");
        assertEquals(Map.of(), fabricLabels(null, "0000:18:00.0"));
        Fabric down = new Fabric(List.of(nic("mlx5_0", "0000:19:00.0", Fabric.Kind.INFINIBAND, "down", 400)), null, List.of());
        assertEquals(Map.of("fabric.kind", "none"), fabricLabels(down, "0000:18:00.0"));
    }
}

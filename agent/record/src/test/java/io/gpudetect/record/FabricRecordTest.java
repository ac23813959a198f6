package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.pci.DrmCards;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node's fabric and each GPU's nearest NIC in the capacity record. */
class FabricRecordTest {

    private static final Fabric FABRIC = new Fabric(List.of(
            new Fabric.RdmaDevice("mlx5_0", "0000:19:00.0", "mlx5_core", 0, "pci0000:15", List.of(
                    new Fabric.RdmaPort(1, Fabric.Kind.INFINIBAND, "InfiniBand", "active", "linkup", 400.0, "4X NDR"))),
            new Fabric.RdmaDevice("mlx5_1", "0000:25:00.0", "mlx5_core", 0, "pci0000:15", List.of(
                    new Fabric.RdmaPort(1, Fabric.Kind.ROCE, "Ethernet", "down", "disabled", 200.0, "4X HDR"))),
            new Fabric.RdmaDevice("rxe0", null, null, null, null, List.of(
                    new Fabric.RdmaPort(1, Fabric.Kind.ROCE, "Ethernet", "active", null, 800.0, null)))),
            new Fabric.GpuDirectRdma(Fabric.GpuDirectRdma.Verdict.CAN_WORK, List.of("nvidia_peermem is loaded")),
            List.of(new Fabric.NearestNic("0000:18:00.0", "mlx5_0", Fabric.PcieDistance.PIX)));

    private static Inventory inventory(Fabric fabric) {
        List<Gpu> gpus = List.of(
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:18:00.0")).build(),
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:98:00.0")).build());
        return new Inventory("test", gpus, List.of(), List.of(), null, List.of(), null, fabric);
    }

    @Test
    void theSpecHoldsTheFabricSummaryDevicesAndEachGpusNearestNic() {
        GpuCapacitySpec spec = CapacityRecords.spec(inventory(FABRIC), Map.of(), Map.of(), null,
                new DrmCards.NotKnown("not here"), "test");

        FabricSpec f = spec.fabric();
        assertEquals(List.of("infiniband"), f.kinds(), "a port that is down and a software device offer nothing");
        assertEquals(400.0, f.maxRateGbps());
        assertEquals(new FabricSpec.GpuDirect("can-work", List.of("nvidia_peermem is loaded")), f.gpuDirectRdma());
        assertEquals(3, f.devices().size());
        assertEquals(new FabricSpec.NearestNic("mlx5_0", "PIX"), spec.gpus().get(0).nearestNic());
        assertNull(spec.gpus().get(1).nearestNic(), "a GPU without a nearest NIC has none");
    }

    @Test
    void eachDeviceCarriesKubernetesStandardAttributesAsTheGpusDo() throws Exception {
        GpuCapacitySpec spec = CapacityRecords.spec(inventory(FABRIC), Map.of(), Map.of(), null,
                new DrmCards.NotKnown("not here"), "test");
        JsonNode json = new ObjectMapper().valueToTree(spec);

        JsonNode nic = json.get("fabric").get("devices").get(0).get("attributes");
        assertEquals("pci0000:15", nic.get("resource.kubernetes.io/pcieRoot").get("string").asText());
        assertEquals("0000:19:00.0", nic.get("resource.kubernetes.io/pciBusID").get("string").asText());
        assertEquals(0, nic.get("resource.kubernetes.io/numaNode").get("int").asInt());
        assertEquals(0, json.get("fabric").get("devices").get(2).get("attributes").size(), "rxe0 sits on no PCI function");
        assertEquals("PIX", json.get("gpus").get(0).get("nearestNic").get("distance").asText());
        // Read back, as an agent or --cluster reads a record: attributes are derived, never read.
        GpuCapacitySpec back = new ObjectMapper().treeToValue(json, GpuCapacitySpec.class);
        assertEquals(spec.fabric(), back.fabric());
    }

    @Test
    void aFabricNotKnownLeavesTheRecordAsBefore() {
        GpuCapacitySpec spec = CapacityRecords.spec(inventory(null), Map.of(), Map.of(), null,
                new DrmCards.NotKnown("not here"), "test");
        assertNull(spec.fabric());
        assertNull(spec.gpus().get(0).nearestNic());
    }
}

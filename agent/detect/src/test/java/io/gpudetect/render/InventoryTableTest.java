package io.gpudetect.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.ProbeResult.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class InventoryTableTest {

    @Test
    void theFabricIsOneLineUnderTheSummaryWhenThereIsADevice() {
        io.gpudetect.model.Fabric f = new io.gpudetect.model.Fabric(List.of(
                new io.gpudetect.model.Fabric.RdmaDevice("mlx5_0", "0000:19:00.0", "mlx5_core", 0, "pci0000:15", List.of(
                        new io.gpudetect.model.Fabric.RdmaPort(1, io.gpudetect.model.Fabric.Kind.INFINIBAND, "InfiniBand",
                                "active", "linkup", 400.0, "4X NDR"))),
                new io.gpudetect.model.Fabric.RdmaDevice("mlx5_1", "0000:25:00.0", "mlx5_core", 0, "pci0000:15", List.of(
                        new io.gpudetect.model.Fabric.RdmaPort(1, io.gpudetect.model.Fabric.Kind.ROCE, "Ethernet",
                                "down", "disabled", 2.5, null))),
                new io.gpudetect.model.Fabric.RdmaDevice("rxe0", null, null, null, null, List.of())),
                new io.gpudetect.model.Fabric.GpuDirectRdma(io.gpudetect.model.Fabric.GpuDirectRdma.Verdict.CANNOT, List.of()),
                List.of());
        Inventory inv = new Inventory("this host", List.of(), List.of(), List.of(), null, List.of(), null, f);
        assertEquals("No GPUs found on this host (sources that answered: none).\n"
                + "RDMA fabric: mlx5_0 infiniband 400 Gb/s, mlx5_1 roce down, rxe0 (software) no port; GPUDirect RDMA cannot\n",
                InventoryTable.render(inv));
        assertEquals("No GPUs found on this host (sources that answered: none).\n", InventoryTable.render(
                new Inventory("this host", List.of(), List.of(), List.of(), null, List.of(), null,
                        new io.gpudetect.model.Fabric(List.of(), null, List.of()))), "no device, no line");
    }

    @Test
    void noGpusNamesTheSourcesThatAnsweredAndApartThoseThatFailed() {
        Inventory broken = Inventories.of("bundle /tmp/x", List.of(), List.of(
                new Inventory.ProbeSummary("nvml", Outcome.FAILED, 0),
                new Inventory.ProbeSummary("sysfs-pci", Outcome.OK, 0),
                new Inventory.ProbeSummary("lspci", Outcome.ABSENT, 0)), List.of());
        assertEquals("No GPUs found on bundle /tmp/x (sources that answered: sysfs-pci; failed: nvml).",
                InventoryTable.summary(broken));

        Inventory onlyFailed = Inventories.of("bundle /tmp/x", List.of(), List.of(
                new Inventory.ProbeSummary("nvml", Outcome.FAILED, 0)), List.of());
        assertEquals("No GPUs found on bundle /tmp/x (sources that answered: none; failed: nvml).",
                InventoryTable.summary(onlyFailed));
    }
}

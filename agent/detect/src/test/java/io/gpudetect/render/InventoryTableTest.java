package io.gpudetect.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.ProbeResult.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class InventoryTableTest {

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

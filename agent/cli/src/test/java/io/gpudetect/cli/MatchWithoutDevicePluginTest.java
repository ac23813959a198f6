package io.gpudetect.cli;

import io.gpudetect.testing.CommandRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A record that lists the node's allocatable resources without nvidia.com/gpu: its NVIDIA cards are not free. */
class MatchWithoutDevicePluginTest {

    @TempDir
    Path dir;

    @Test
    void aNodeWithoutAllocatableUnitsOfAVendorHasNoneFree() throws IOException {
        Path records = dir.resolve("records.yaml");
        Files.writeString(records, """
                - kind: GpuCapacity
                  metadata: {name: no-plugin}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:01:00.0"}
                    allocatable: {}
                - kind: GpuCapacity
                  metadata: {name: unknown-allocatable}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:01:00.0"}
                """);
        CommandRun r = MatchCommandTest.run("match", "--records", records.toString(), "--gpu", "vendor=nvidia,model=rtx4090,count=1", "-o", "json");
        assertEquals(0, r.exit(), "the record without an allocatable field still counts its cards as free: " + r.out());
        assertTrue(r.out().contains("\"reason\" : \"no nvidia.com/gpu allocatable (device plugin missing?)\""), r.out());
        CommandRun both = MatchCommandTest.run("match", "--records", records.toString(), "--gpu",
                "vendor=nvidia,model=rtx4090,count=1,replicas=2");
        assertEquals(1, both.exit(), both.out());
        CommandRun inventory = MatchCommandTest.run("inventory", "--records", records.toString(), "-o", "json");
        assertTrue(inventory.out().contains("\"allocatable\" : 1"), inventory.out());
    }
}

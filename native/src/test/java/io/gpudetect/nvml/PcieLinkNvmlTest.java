package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The four PCIe link calls through the bindings, against the compiled stand-in library. */
class PcieLinkNvmlTest {

    @TempDir
    Path dir;

    @Test
    void readsTheMaximumAndCurrentGenerationAndWidthOfEachGpu() throws Exception {
        NvmlSnapshot s = new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir, "current", "mixed")),
                JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();

        NvmlSnapshot.Device h100 = s.devices().get(0);
        assertEquals(5L, h100.maxPcieLinkGeneration().get());
        assertEquals(1L, h100.currentPcieLinkGeneration().get(), "the stand-in's H100 is idle, down at Gen1");
        assertEquals(16L, h100.maxPcieLinkWidth().get());
        assertEquals(16L, h100.currentPcieLinkWidth().get());
        NvmlSnapshot.Device rtx4090 = s.devices().get(1);
        assertEquals(16L, rtx4090.maxPcieLinkWidth().get());
        assertEquals(8L, rtx4090.currentPcieLinkWidth().get());
        assertEquals("nvmlDeviceGetCurrPcieLinkWidth", rtx4090.currentPcieLinkWidth().function());
    }
}

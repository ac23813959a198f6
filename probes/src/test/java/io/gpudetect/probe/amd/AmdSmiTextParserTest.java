package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ParsedOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text forms of amd-smi; values follow AMD's documented output and are otherwise made up. */
class AmdSmiTextParserTest {

    @Test
    void staticTextGivesWhatTheJsonGivesAndSkipsCpuBlocks() {
        String text = String.join("\n",
                "CPU: 0",
                "    SMU:",
                "        FW_VERSION: 85.90.0",
                "",
                "GPU: 0",
                "    ASIC:",
                "        MARKET_NAME: MI300A",
                "        VENDOR_ID: 0x1002",
                "        DEVICE_ID: 0x74a0",
                "        REV_ID: 0x00",
                "        NUM_COMPUTE_UNITS: 228",
                "        TARGET_GRAPHICS_VERSION: gfx942",
                "    BUS:",
                "        BDF: 0001:01:00.0",
                "        SLOT_TYPE: PCIE",
                "    DRIVER:",
                "        NAME: amdgpu",
                "        VERSION: 6.9.0-rc5+",
                "    SOC_PSTATE:",
                "        POLICIES:",
                "            POLICY_ID: 0",
                "            POLICY_ID: 1",
                "    VRAM:",
                "        TYPE: HBM",
                "        SIZE: 64289 MB",
                "",
                "GPU: 1",
                "    ASIC:",
                "        MARKET_NAME: MI300A",
                "        DEVICE_ID: 0x74a0",
                "    VRAM:",
                "        SIZE: N/A", "");
        ParsedOutput out = AmdSmiTextParser.parse(text, "amd-smi.txt");
        assertEquals(2, out.gpus().size(), "the CPU block is no GPU");
        Gpu gpu = out.gpus().get(0);
        assertEquals("MI300A", gpu.name());
        assertEquals("74a0", gpu.pciDeviceId());
        assertEquals("00", gpu.pciRevision());
        assertEquals(228, gpu.computeUnits());
        assertEquals("gfx942", gpu.architecture());
        assertEquals("0001:01:00.0", gpu.pciAddress().toString());
        assertEquals("6.9.0-rc5+", gpu.driverVersion());
        assertEquals(64289L, gpu.memoryMiB());
        assertNull(out.gpus().get(1).memoryMiB());
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void listAndMetricTextGiveAddressAndMemory() {
        String text = String.join("\n",
                "GPU: 0",
                "    BDF: 0000:23:00.0",
                "    UUID: 58ff74a1-0000-1000-80a9-b4d8b0e8b1c5",
                "    MEM_USAGE:",
                "        TOTAL_VRAM: 196288 MB",
                "        USED_VRAM: 283 MB", "");
        Gpu gpu = AmdSmiTextParser.parse(text, "amd-smi.txt").gpus().get(0);
        assertEquals("0000:23:00.0", gpu.pciAddress().toString());
        assertEquals(196288L, gpu.memoryMiB());
    }

    @Test
    void textWithoutGpuBlocksIsAnError() {
        ParsedOutput out = AmdSmiTextParser.parse("amd-smi: command not found\n", "amd-smi.txt");
        assertTrue(out.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity());
        assertEquals(List.of(), out.gpus());
    }
}

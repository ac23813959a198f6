package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 28, kind 6: what AMD's tools print that was read wrong or not at all (inputs written here, in their shapes). */
class AmdDetailsTest {

    @Test
    void theOldShowhwLayoutGivesTheDeviceIdBare() {
        String text = """
                ======================= ROCm System Management Interface =======================
                ============================ Concise Hardware Info =============================
                GPU  DID   GFX RAS   SDMA RAS  UMC RAS   VBIOS           BUS
                0    740c  ENABLED   ENABLED   DISABLED  113-D65209-073  0000:29:00.0
                1    740c  ENABLED   ENABLED   DISABLED  113-D65209-073  0000:2C:00.0
                ================================================================================
                ============================= End of ROCm SMI Log ==============================
                """;
        List<Gpu> gpus = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus();
        assertEquals(2, gpus.size());
        assertEquals("740c", gpus.get(0).pciDeviceId());
        assertEquals("0000:2c:00.0", gpus.get(1).pciAddress().toString());
    }

    @Test
    void aFourDigitGuidIsNoDeviceId() {
        String text = """
                ================================= ROCm System Management Interface =================================
                ====================================== Concise Hardware Info =======================================
                GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS   VBIOS  BUS           PARTITION ID
                0    4     0x74a0  3877   gfx942   ENABLED  ENABLED   DISABLED  N/A    0000:01:00.0  0
                ====================================================================================================
                """;
        assertEquals("74a0", RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus().get(0).pciDeviceId());
    }

    @Test
    void cardModelIsTheDeviceIdWhereTheSubsystemHasItsOwnKey() {
        String json = """
                {"card0": {"Card Series": "AMD INSTINCT MI200 (MCM) OAM AC MBA", "Card Model": "0x740c",
                 "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]", "Card SKU": "D65209", "Subsystem ID": "0x0b0c",
                 "Device Rev": "0x01", "GFX Version": "gfx90a"}}
                """;
        Gpu gpu = RocmSmiJsonParser.parse(json, "rocm-smi.json").gpus().get(0);
        assertEquals("740c", gpu.pciDeviceId());
        assertEquals("0b0c", gpu.pciSubsystemDeviceId());
    }

    @Test
    void hygonDcusAreHygonsWithTheirMemory() {
        String json = """
                {"card0": {"Device ID": "0x6320", "Card Series": "Z100L", "Card Vendor": "Chengdu Haiguang IC Design Co., Ltd.",
                 "Unique ID": "5a1b2c3d4e5f6071", "vram Total Memory (MiB)": "32752", "vram Total Used Memory (MiB)": "12"}}
                """;
        Gpu gpu = RocmSmiJsonParser.parse(json, "rocm-smi.json").gpus().get(0);
        assertEquals(Vendor.HYGON, gpu.vendor());
        assertEquals("1d94", gpu.pciVendorId());
        assertEquals(32752L, gpu.memoryMiB());
    }

    @Test
    void theRockModuleVersionIsTheDriverVersion() {
        String text = """
                ROCk module version 6.10.5 is loaded
                =====================
                HSA System Attributes
                =====================
                Runtime Version:         1.14
                ==========
                HSA Agents
                ==========
                *******
                Agent 1
                *******
                  Name:                    gfx1100
                  Marketing Name:          AMD Radeon RX 7900 XTX
                  Vendor Name:             AMD
                  Device Type:             GPU
                  Chip ID:                 29772(0x744c)
                  Compute Unit:            96
                *** Done ***
                """;
        ParsedOutput out = RocminfoParser.parse(text, "rocminfo.txt");
        assertEquals("6.10.5", out.gpus().get(0).driverVersion());

        String old = text.replace("ROCk module version 6.10.5 is loaded", "ROCk module is loaded");
        assertEquals(null, RocminfoParser.parse(old, "rocminfo.txt").gpus().get(0).driverVersion());
    }
}

package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ParsedOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

class RocmSmiTableParserTest {

    @Test
    void rocm5TableGivesOneGpuPerRow() {
        String text = """
                ======================= ROCm System Management Interface =======================
                ================================= Concise Info =================================
                GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%
                0    35.0c           18.0W   852Mhz  167Mhz   0%   auto  290.0W    0%   0%
                1    33.0c           17.0W   852Mhz  167Mhz   0%   auto  290.0W    0%   0%
                ================================================================================
                ============================= End of ROCm SMI Log ==============================
                """;
        ParsedOutput out = RocmSmiTableParser.parse(text, "rocm-smi.txt");
        assertEquals(2, out.gpus().size());
        assertNull(out.gpus().get(0).pciDeviceId());
        assertTrue(out.diagnostics().isEmpty());
    }

    @Test
    void rocm6TableGivesTheDeviceId() {
        String text = """
                ============================================ ROCm System Management Interface ============================================
                ====================================================== Concise Info ======================================================
                Device  Node  IDs              Temp    Power  Partitions          SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%
                              (DID,     GUID)  (Edge)  (Avg)  (Mem, Compute, ID)
                ==========================================================================================================================
                0       2     0x740f,   28851  35.0°C  42.0W  N/A, N/A, 0         800Mhz  1600Mhz 0%   auto  300.0W  0%     0%
                ==========================================================================================================================
                ================================================== End of ROCm SMI Log ===================================================
                """;
        List<Gpu> gpus = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus();
        assertEquals(1, gpus.size());
        assertEquals("740f", gpus.get(0).pciDeviceId());
    }

    @Test
    void modelRevisionFormGivesNameOnTheNextLine() {
        String text = """
                Device  [Model : Revision]    Temp        Power     Partitions      SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%
                        Name (20 chars)       (Junction)  (Socket)  (Mem, Compute)
                ====================================================================================================================
                0       [0x74a1 : 0x00]       35.0°C      133.0W    NPS1, SPX       131Mhz  900Mhz  0%   auto  750.0W    0%   0%
                        AMD Instinct MI300X
                1       [0x74a1 : 0x00]       37.0°C      131.0W    NPS1, SPX       132Mhz  900Mhz  0%   auto  750.0W    0%   0%
                        AMD Instinct MI300X
                ====================================================================================================================
                """;
        List<Gpu> gpus = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus();
        assertEquals(2, gpus.size());
        assertEquals("74a1", gpus.get(1).pciDeviceId());
        assertEquals("00", gpus.get(1).pciRevision());
        assertEquals("AMD Instinct MI300X", gpus.get(1).name());
    }

    @Test
    void showAllInfoLinesGiveIdsBusNameAndTheDriver() {
        String text = """
                ============================ ROCm System Management Interface ============================
                ============================== Version of System Component ===============================
                Driver version: 6.7.0
                =========================================== ID ===========================================
                GPU[0]\t\t: Device ID: 0x74a1
                GPU[0]\t\t: Device Rev: 0x0
                GPU[1]\t\t: Device ID: 0x74a1
                GPU[1]\t\t: Device Rev: 0x0
                ======================================= PCI Bus ID =======================================
                GPU[0]\t\t: PCI Bus: 0000:26:00.0
                GPU[1]\t\t: PCI Bus: 0000:46:00.0
                GPU[1] XCP[1]\t: GFX Activity: 0
                ====================================== Product Info ======================================
                GPU[0]\t\t: Card series: \t\tAMD Instinct MI300X OAM
                GPU[0]\t\t: Card model: \t\t0x74a1
                GPU[1]\t\t: Card series: \t\tAMD Instinct MI300X OAM
                GPU[1]\t\t: Card model: \t\t0x74a1
                ================================== End of ROCm SMI Log ===================================
                """;
        ParsedOutput out = RocmSmiTableParser.parse(text, "rocm-smi.txt");
        assertEquals(2, out.gpus().size(), "an XCP line is a partition of GPU[1], not another GPU");
        Gpu second = out.gpus().get(1);
        assertEquals("74a1", second.pciDeviceId());
        assertEquals("00", second.pciRevision());
        assertEquals("0000:46:00.0", second.pciAddress().toString());
        assertEquals("AMD Instinct MI300X OAM", second.name());
        assertNull(second.pciSubsystemDeviceId(), "Card model repeats the device id: no subsystem");
        assertEquals("6.7.0", second.driverVersion());
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void productNameAndMemoryPastedTogetherDescribeTheSameCards() {
        String text = """
                ========================= ROCm System Management Interface =========================
                =================================== Product Info ===================================
                GPU[0]      : Card series:      AMD INSTINCT MI250 (MCM) OAM AC MBA
                GPU[0]      : Card model:       0x0b0c
                GPU[1]      : Card series:      AMD INSTINCT MI250 (MCM) OAM AC MBA
                GPU[1]      : Card model:       0x0b0c
                ====================================================================================
                ========================= ROCm System Management Interface =========================
                =============================== Memory Usage (Bytes) ===============================
                GPU[0]\t\t: VRAM Total Memory (B): 68702699520
                GPU[0]\t\t: VRAM Total Used Memory (B): 10960896
                GPU[1]\t\t: VRAM Total Memory (B): 68702699520
                GPU[1]\t\t: VRAM Total Used Memory (B): 10960896
                ====================================================================================
                """;
        List<Gpu> gpus = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus();
        assertEquals(2, gpus.size());
        assertEquals("AMD INSTINCT MI250 (MCM) OAM AC MBA", gpus.get(0).name());
        assertEquals("0b0c", gpus.get(0).pciSubsystemDeviceId(), "before ROCm 6.1 Card model is the subsystem");
        assertEquals(65520L, gpus.get(1).memoryMiB());
    }

    @Test
    void aSeriesThatIsAnIdIsTheDeviceIdNotAName() {
        String text = """
                GPU[0]          : Card series:          0x740f
                GPU[0]          : Card model:           0x0c34
                GPU[0]          : Card vendor:          Advanced Micro Devices, Inc. [AMD/ATI]
                """;
        Gpu gpu = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus().get(0);
        assertEquals("740f", gpu.pciDeviceId());
        assertNull(gpu.name());
        assertEquals("0c34", gpu.pciSubsystemDeviceId());
    }

    @Test
    void twoLinesRunTogetherInAPasteKeepTheLastValue() {
        String text = """
                GPU[0]    : Card series:    Instinct MI210
                GPU[1]    : Card series:    Instinct MI210Card series:    Instinct MI210
                """;
        ParsedOutput out = RocmSmiTableParser.parse(text, "rocm-smi.txt");
        assertEquals("Instinct MI210", out.gpus().get(1).name());
        assertEquals(Integer.valueOf(2), out.diagnostics().get(0).line());
    }

    @Test
    void csvRowsAndTheSystemBlockGiveCardsAndDriver() {
        String text = """
                name, value
                "Driver version", "6.8.5"

                device,Card Series,Card Model,Card Vendor,Card SKU,Subsystem ID,Device Rev,Node ID,GUID,GFX Version
                card0,AMD Instinct MI210,0x740f,Advanced Micro Devices Inc. [AMD/ATI],D67301V,0x0c34,0x02,2,20631,gfx90a
                card1,AMD Instinct MI210,0x740f,Advanced Micro Devices Inc. [AMD/ATI],D67301V,0x0c34,0x02,3,4416,gfx90a
                """;
        List<Gpu> gpus = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus();
        assertEquals(2, gpus.size());
        Gpu gpu = gpus.get(1);
        assertEquals("AMD Instinct MI210", gpu.name());
        assertEquals("0c34", gpu.pciSubsystemDeviceId());
        assertEquals("02", gpu.pciRevision());
        assertEquals("gfx90a", gpu.architecture());
        assertEquals("6.8.5", gpu.driverVersion());
    }

    @Test
    void aTablePastedTwiceCountsEachCardOnce() {
        String table = """
                Device  Node  IDs              Temp    Power  Partitions          SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%
                              (DID,     GUID)  (Edge)  (Avg)  (Mem, Compute, ID)
                ==========================================================================================================================
                0       2     0x740f,   28851  35.0°C  42.0W  N/A, N/A, 0         800Mhz  1600Mhz 0%   auto  300.0W  0%     0%
                1       3     0x740f,   51796  36.0°C  43.0W  N/A, N/A, 0         800Mhz  1600Mhz 0%   auto  300.0W  0%     0%
                ==========================================================================================================================
                """;
        assertEquals(2, RocmSmiTableParser.parse(table + "\n" + table, "rocm-smi.txt").gpus().size());
    }

    @Test
    void theHardwareTableGivesDeviceIdGfxAndBus() {
        String text = """
                ====================================== ROCm System Management Interface ======================================
                =========================================== Concise Hardware Info ============================================
                GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS  VBIOS            BUS           PARTITION ID
                0    2     0x74a1  47056  gfx942   ENABLED  ENABLED   ENABLED  113-M3000100-102  0000:05:00.0  0
                ==============================================================================================================
                """;
        Gpu gpu = RocmSmiTableParser.parse(text, "rocm-smi.txt").gpus().get(0);
        assertEquals("74a1", gpu.pciDeviceId());
        assertEquals("gfx942", gpu.architecture());
        assertEquals("0000:05:00.0", gpu.pciAddress().toString());
    }

    @Test
    void textWithoutTheTableIsAnError() {
        ParsedOutput out = RocmSmiTableParser.parse("rocm-smi: command not found\n", "rocm-smi.txt");
        assertTrue(out.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity());
        assertTrue(out.diagnostics().get(0).message().contains("Concise Info"));
    }
}

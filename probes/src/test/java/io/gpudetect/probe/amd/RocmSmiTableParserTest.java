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
    void textWithoutTheTableIsAnError() {
        ParsedOutput out = RocmSmiTableParser.parse("rocm-smi: command not found\n", "rocm-smi.txt");
        assertTrue(out.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity());
        assertTrue(out.diagnostics().get(0).message().contains("Concise Info"));
    }
}

package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.probe.Fixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The PCIe link as nvidia-smi prints it ({@code pci_gpu_link_info}, {@code GPU Link Info}, {@code pcie.link.*}),
 * and which recorded hosts run on fewer lanes than their GPUs have. Expected values read by hand.
 */
class PcieLinkNvidiaSmiTest {

    private static List<Gpu> xml(String host) {
        return NvidiaSmiXmlParser.parse(Fixtures.host(host, "nvidia-smi.xml"), "nvidia-smi.xml").gpus();
    }

    @Test
    void twoRtx2070sSharingTheBoardsLanesRunAtX8AndCountAsDegraded() {
        for (Gpu g : xml("2x-geforce-rtx-2070_590.44.01_v13")) {
            assertEquals(new PcieLink(1, 3, 8, 16), g.pcieLink());
            assertEquals(Boolean.TRUE, g.pcieLink().degraded());
        }
    }

    @Test
    void anIdleGpuAtGen1OnAllSixteenLanesIsNotDegraded() {
        Gpu g = xml("geforce-rtx-3090_525.147.05_v12").get(0);
        assertEquals(new PcieLink(1, 4, 16, 16), g.pcieLink());
        assertEquals(Boolean.FALSE, g.pcieLink().degraded());
    }

    @Test
    void aVgpuPrintsNoLinkAtAll() {
        assertNull(xml("grid-p4-1q-vgpu_windows_513.46_v11").get(0).pcieLink());
    }

    @Test
    void theQueryTextAndTheCsvOfH100Hosts() {
        List<Gpu> q = NvidiaSmiQueryTextParser.parse(
                Fixtures.host("8x-h100-80gb-hbm3_565.57.01_table-and-q", "nvidia-smi-q.txt"), "q").gpus();
        for (Gpu g : q) {
            assertEquals(new PcieLink(5, 5, 16, 16), g.pcieLink());
        }
        Gpu csv = NvidiaSmiCsvParser.parse(
                Fixtures.host("h100-80gb-hbm3_590.48.01_text-formats", "nvidia-smi-query.csv"), "csv").gpus().get(0);
        assertEquals(new PcieLink(5, 5, 16, 16), csv.pcieLink());
    }

    @Test
    void nvidiaSmiPrintsWidthsWithAnXOnEitherSide() {
        assertEquals(16, NvidiaValues.pcieLink("16x"));
        assertEquals(8, NvidiaValues.pcieLink("x8"));
        assertEquals(5, NvidiaValues.pcieLink("5"));
        assertNull(NvidiaValues.pcieLink("N/A"));
        assertEquals("'0x' is not a PCIe generation or link width (1 to 32, like '5' or '16x')",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> NvidiaValues.pcieLink("0x")).getMessage());
    }
}

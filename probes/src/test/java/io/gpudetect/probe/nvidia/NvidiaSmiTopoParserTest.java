package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.GpuLinks.Kind;
import io.gpudetect.model.GpuLinks.Link;
import io.gpudetect.model.GpuLinks.Remote;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code nvidia-smi topo -m} in the shapes public pastes show (hand-written here, none copied): tab-separated with
 * the header underlined by an escape sequence, space-aligned, with NIC rows and their legend, the old mlx5 columns
 * and SOC cells, the affinity columns empty (Windows).
 */
class NvidiaSmiTopoParserTest {

    private static final String FILE = "nvidia-smi-topo.txt";
    private static final String LEGEND = """

            Legend:

              X    = Self
              SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
              NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
              PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
              PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
              PIX  = Connection traversing at most a single PCIe bridge
              NV#  = Connection traversing a bonded set of # NVLinks
            """;

    private static String address(int i) {
        return String.format("0000:%02x:00.0", 0x10 + i);
    }

    private static GpuLinks links(NvidiaSmiTopoParser.Matrix m, int gpu) {
        return m.links(gpu, NvidiaSmiTopoParserTest::address);
    }

    private static Link toGpu(int peer, int count) {
        return new Link(Kind.NVLINK, true, null, Remote.GPU, address(peer), count);
    }

    @Test
    void eightH100OnNvSwitchWithNicRowsAndLegend() {
        StringBuilder t = new StringBuilder("\t\u001B[4mGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1"
                + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001B[0m\n");
        for (int i = 0; i < 8; i++) {
            t.append("GPU").append(i);
            for (int j = 0; j < 8; j++) {
                t.append('\t').append(i == j ? " X " : "NV18");
            }
            t.append(i < 4 ? "\tPIX\tSYS\t0-51\t0\t\tN/A\n" : "\tSYS\tPIX\t52-103\t1\t\tN/A\n");
        }
        t.append("NIC0\tPIX\tPIX\tPIX\tPIX\tSYS\tSYS\tSYS\tSYS\t X \tSYS\n");
        t.append("NIC1\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\tPIX\tPIX\tSYS\t X \n");
        t.append(LEGEND).append("\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n");

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t.toString(), FILE);

        assertEquals(List.of(), m.diagnostics());
        assertEquals(8, m.nvlinks().size(), "the NIC rows are not GPUs");
        for (int i = 0; i < 8; i++) {
            // 7 peers x 18 is more links than a GPU has: the 18 go to the switches.
            assertEquals(new GpuLinks(List.of(new Link(Kind.NVLINK, true, null, Remote.NVSWITCH, null, 18)), null),
                    links(m, i), "GPU" + i);
        }
    }

    @Test
    void fourV100InAHybridMeshWithNv1AndNv2SpaceAligned() {
        String t = """
                        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity
                GPU0     X      NV1     NV1     NV2     0-19            0
                GPU1    NV1      X      NV2     NV1     0-19            0
                GPU2    NV1     NV2      X      NV2     0-19            0
                GPU3    NV2     NV1     NV2      X      0-19            0
                """ + LEGEND;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(List.of(), m.diagnostics());
        assertEquals(List.of(toGpu(1, 1), toGpu(2, 1), toGpu(3, 2)), links(m, 0).links());
        assertEquals(List.of(toGpu(0, 1), toGpu(1, 2), toGpu(3, 2)), links(m, 2).links());
        assertEquals(5, links(m, 2).linksUp());
    }

    @Test
    void twoCardsOnAnNv4Bridge() {
        String t = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                + "GPU0\t X \tNV4\t0-31\t0\t\tN/A\n"
                + "GPU1\tNV4\t X \t0-31\t0\t\tN/A\n" + LEGEND;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(List.of(toGpu(1, 4)), links(m, 0).links());
        assertEquals(List.of(toGpu(0, 4)), links(m, 1).links());
    }

    @Test
    void pcieOnlyGpusHaveNoLinksIncludingOldSocCellsAndMlxColumns() {
        String t = """
                        GPU0    GPU1    GPU2    GPU3    mlx5_0  CPU Affinity
                GPU0     X      PIX     PHB     SOC     PHB     0-9,20-29
                GPU1    PIX      X      PHB     SOC     PHB     0-9,20-29
                GPU2    PHB     PHB      X      SYS     PHB     0-9,20-29
                GPU3    SOC     SOC     SYS      X      SYS     10-19,30-39
                mlx5_0  PHB     PHB     PHB     SYS      X
                """ + LEGEND;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(List.of(), m.diagnostics());
        assertEquals(4, m.nvlinks().size());
        for (int i = 0; i < 4; i++) {
            assertEquals(new GpuLinks(List.of(), null), links(m, i), "an empty list: the GPU has no links to its peers");
        }
    }

    @Test
    void oneGpuSaysNothingOfLinks() {
        // As nvidia-smi 590 prints it on one H100 (whose switch links the matrix cannot show): cells empty on Windows.
        String t = "\t\u001B[4mGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001B[0m\nGPU0\t X \t\t\t\tN/A\n" + LEGEND;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(List.of(), m.diagnostics());
        assertEquals(Map.of(0, Map.of()), m.nvlinks());
        assertNull(links(m, 0));
    }

    @Test
    void anUnknownCellOrAShortRowIsWarnedWithItsLineAndTheRowLeftOut() {
        String t = """
                        GPU0    GPU1    GPU2    CPU Affinity
                GPU0     X      NV4     ???     0-7
                GPU1    NV4      X
                GPU2    PHB     PHB      X      0-7
                """;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(List.of(2), m.nvlinks().keySet().stream().toList());
        assertEquals(2, m.diagnostics().size());
        Diagnostic cell = m.diagnostics().get(0);
        assertEquals(2, cell.line());
        assertTrue(cell.message().contains("GPU0 to GPU2 reads '???'"), cell.message());
        assertEquals(3, m.diagnostics().get(1).line());
        assertTrue(m.diagnostics().get(1).message().contains("expected 3 cells"), m.diagnostics().get(1).message());
    }

    @Test
    void textWithoutTheMatrixIsWarnedAndGivesNoRows() {
        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse("NVIDIA-SMI has failed because it couldn't communicate"
                + " with the NVIDIA driver.\n", FILE);

        assertTrue(m.nvlinks().isEmpty());
        assertEquals(Diagnostic.Severity.WARNING, m.diagnostics().get(0).severity());
        assertTrue(m.diagnostics().get(0).message().contains("no 'GPU0 ...' header row"));
    }

    @Test
    void numbersTooLongForAnIndexOrACountAreCellsNotRead() {
        String t = """
                        GPU0    GPU1    CPU Affinity
                GPU0     X      NV99999999999   0-1
                GPU1    NV4      X      0-1
                GPU99999999999 NV4 NV4 0-1
                """;

        NvidiaSmiTopoParser.Matrix m = NvidiaSmiTopoParser.parse(t, FILE);

        assertEquals(Map.of(1, Map.of(0, 4)), m.nvlinks());
        assertEquals(2, m.diagnostics().get(0).line());
    }
}

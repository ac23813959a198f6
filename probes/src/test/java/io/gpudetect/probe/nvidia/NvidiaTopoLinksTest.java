package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Interconnect;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleSource;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bundle of pasted nvidia-smi output with {@code nvidia-smi-topo.txt} beside it: the matrix's NVLinks land on the
 * GPUs by index (PCI bus order), their peers named by address, and the node's interconnect summary is made from them
 * as from NVML's.
 */
class NvidiaTopoLinksTest {

    private static final Tables TABLES = Tables.shipped(() -> AkashGpus.absent("not in this test"));

    @TempDir
    Path tmp;

    /** {@code n} GPUs of {@code name} in the CSV form, listed out of bus order to show the matrix follows the bus. */
    private void csv(String name, int n) throws Exception {
        StringBuilder t = new StringBuilder("index, name, pci.bus_id, memory.total [MiB]\n");
        for (int i = n - 1; i >= 0; i--) {
            t.append(i).append(", ").append(name).append(", ").append(String.format("00000000:%02X:00.0", 0x18 + 0x10 * i))
                    .append(", 81559 MiB\n");
        }
        Files.writeString(tmp.resolve("nvidia-smi-query.csv"), t.toString());
    }

    private void topo(String matrix) throws Exception {
        Files.writeString(tmp.resolve("nvidia-smi-topo.txt"), matrix);
    }

    private Inventory detect() throws Exception {
        return new Detector(Probes.defaults()).detect(BundleSource.open(tmp), TABLES);
    }

    @Test
    void eightGpusOnNvSwitchAreAllToAll() throws Exception {
        csv("NVIDIA H100 80GB HBM3", 8);
        StringBuilder t = new StringBuilder("        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    CPU Affinity\n");
        for (int i = 0; i < 8; i++) {
            t.append("GPU").append(i);
            for (int j = 0; j < 8; j++) {
                t.append("    ").append(i == j ? " X " : "NV18");
            }
            t.append("    0-51\n");
        }
        topo(t.toString());

        Inventory inv = detect();

        Interconnect i = inv.interconnect();
        assertEquals("nvswitch", i.topology(), i.summary());
        assertEquals("8 GPUs all-to-all through NVSwitch", i.summary());
        assertTrue(i.allPairsJoined());
        assertEquals(8 * 18, i.linksUp());
        assertEquals("nvidia-smi-topo", inv.gpus().get(0).sources().get("links"));
    }

    @Test
    void twoBridgedCardsArePairedByBusOrder() throws Exception {
        csv("NVIDIA RTX A6000", 2);
        topo("""
                        GPU0    GPU1    CPU Affinity    NUMA Affinity
                GPU0     X      NV4     0-31            0
                GPU1    NV4      X      0-31            0
                """);

        Inventory inv = detect();

        List<Gpu> gpus = inv.gpus();
        assertEquals("0000:18:00.0", gpus.get(0).pciAddress().toString());
        assertEquals(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, null, GpuLinks.Remote.GPU, "0000:28:00.0", 4)),
                gpus.get(0).links().links());
        assertEquals("0000:18:00.0", gpus.get(1).links().links().get(0).remotePciAddress());
        assertEquals("bridge", inv.interconnect().topology(), inv.interconnect().summary());
    }

    @Test
    void pcieOnlyGpusHaveNoLinks() throws Exception {
        csv("NVIDIA L40S", 2);
        topo("""
                        GPU0    GPU1    CPU Affinity
                GPU0     X      SYS     0-31
                GPU1    SYS      X      32-63
                """);

        Interconnect i = detect().interconnect();

        assertEquals("none", i.topology());
        assertEquals("no GPU links between the 2 GPUs", i.summary());
    }

    @Test
    void aMatrixOfAnotherCountIsWarnedAndNotUsed() throws Exception {
        csv("NVIDIA A100-SXM4-80GB", 2);
        topo("""
                        GPU0    GPU1    GPU2    CPU Affinity
                GPU0     X      NV12    NV12    0-31
                GPU1    NV12     X      NV12    0-31
                GPU2    NV12    NV12     X      0-31
                """);

        Inventory inv = detect();

        assertNull(inv.gpus().get(0).links());
        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.message().contains("which row is which GPU is not known")),
                inv.diagnostics().toString());
    }

    @Test
    void aBundleWithoutTheMatrixSaysNothingOfIt() throws Exception {
        csv("NVIDIA A100-SXM4-80GB", 2);

        Inventory inv = detect();

        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().noneMatch(d -> "nvidia-smi-topo".equals(d.probe())), inv.diagnostics().toString());
    }
}

package io.gpudetect.probe.amd;

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
 * A bundle of AMD tool output without sysfs, with {@code amd-smi topology} or {@code rocm-smi --showtopo} beside it:
 * the XGMI cells land on the GPUs by address (amd-smi) or by index in bus order (rocm-smi), and the node's interconnect
 * summary is made from them as from sysfs's hive.
 */
class AmdTopoLinksTest {

    private static final Tables TABLES = Tables.shipped(() -> AkashGpus.absent("not in this test"));
    /** Eight MI300X's bus addresses, as amd-smi prints them. */
    private static final List<String> MI300X = List.of("0000:0c:00.0", "0000:22:00.0", "0000:38:00.0", "0000:5c:00.0",
            "0000:9f:00.0", "0000:af:00.0", "0000:bf:00.0", "0000:df:00.0");

    @TempDir
    Path tmp;

    /**
     * {@code rocm-smi.json} with the first {@code n} of {@code buses}, listed out of bus order (cardN numbering need
     * not follow the bus), and {@code system} members as given.
     */
    private void rocmSmiJson(String name, List<String> buses, int n, String system) throws Exception {
        StringBuilder j = new StringBuilder("{\n");
        for (int i = n - 1; i >= 0; i--) {
            j.append("  \"card").append(n - 1 - i).append("\": {\"Card series\": \"").append(name)
                    .append("\", \"Device ID\": \"0x74a1\", \"PCI Bus\": \"").append(buses.get(i).toUpperCase())
                    .append("\"},\n");
        }
        j.append("  \"system\": {\"Driver version\": \"6.8.5\"").append(system).append("}\n}\n");
        Files.writeString(tmp.resolve("rocm-smi.json"), j.toString());
    }

    private Inventory detect() throws Exception {
        return new Detector(Probes.defaults()).detect(BundleSource.open(tmp), TABLES);
    }

    @Test
    void eightMi300xFromAmdSmiTopologyAreAllToAllOverXgmi() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 8, "");
        Files.writeString(tmp.resolve("amd-smi-topology.txt"), AmdSmiTopologyParserTest.eightMi300xText());

        Inventory inv = detect();

        Interconnect i = inv.interconnect();
        assertEquals("all-to-all", i.topology(), i.summary());
        assertEquals("8 GPUs all-to-all over XGMI", i.summary());
        assertTrue(i.allPairsJoined());
        Gpu first = inv.gpus().get(0);
        assertEquals("0000:0c:00.0", first.pciAddress().toString());
        assertEquals(7, first.links().links().size());
        assertEquals(new GpuLinks.Link(GpuLinks.Kind.XGMI, true, null, GpuLinks.Remote.GPU, "0000:22:00.0", 1),
                first.links().links().get(0));
        assertEquals("amd-smi-topology", first.sources().get("links"));
    }

    @Test
    void twoHivesFromRocmSmiShowtopoArePlacedInBusOrder() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 8, "");
        Files.writeString(tmp.resolve("rocm-smi-showtopo.txt"),
                RocmSmiTopoParserTest.showtopo(8, (i, j) -> i / 4 == j / 4 ? "XGMI" : "PCIE"));

        Inventory inv = detect();

        Gpu fifth = inv.gpus().get(4);
        assertEquals("0000:9f:00.0", fifth.pciAddress().toString());
        assertEquals(List.of("0000:af:00.0", "0000:bf:00.0", "0000:df:00.0"),
                fifth.links().links().stream().map(GpuLinks.Link::remotePciAddress).toList());
        assertEquals("rocm-smi-topo", fifth.sources().get("links"));
        assertEquals("partial", inv.interconnect().topology(), inv.interconnect().summary());
    }

    @Test
    void pcieOnlyCardsFromRocmSmiJsonHaveNoLinks() throws Exception {
        List<String> four = List.of("0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0");
        StringBuilder system = new StringBuilder();
        for (int a = 0; a < 4; a++) {
            for (int b = a + 1; b < 4; b++) {
                system.append(", \"(Topology) Link type between DRM devices ").append(a).append(" and ").append(b)
                        .append("\": \"PCIE\"");
            }
        }
        rocmSmiJson("AMD Instinct MI100", four, 4, system.toString());

        Inventory inv = detect();

        assertEquals(List.of(), inv.gpus().get(0).links().links());
        assertEquals("none", inv.interconnect().topology());
        assertEquals("no GPU links between the 4 GPUs", inv.interconnect().summary());
    }

    @Test
    void aWarningQuotingAHugeCellIsCutAsAProbesAre() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 2, "");
        String huge = "X".repeat(5_000);
        Files.writeString(tmp.resolve("rocm-smi-showtopo.txt"),
                RocmSmiTopoParserTest.showtopo(2, (i, j) -> i == 0 ? huge : "XGMI"));

        Inventory inv = detect();

        List<io.gpudetect.model.Diagnostic> topo = inv.diagnostics().stream()
                .filter(d -> "rocm-smi-topo".equals(d.probe())).toList();
        assertTrue(!topo.isEmpty(), inv.diagnostics().toString());
        assertTrue(topo.stream().allMatch(d -> d.message().length() <= io.gpudetect.probe.FieldLimits.MAX_MESSAGE_CHARS),
                topo.toString());
    }

    @Test
    void aTableOfAnotherCountIsWarnedAndNotUsed() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 2, "");
        Files.writeString(tmp.resolve("rocm-smi-showtopo.txt"), RocmSmiTopoParserTest.showtopo(4, (i, j) -> "XGMI"));

        Inventory inv = detect();

        assertNull(inv.gpus().get(0).links());
        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> "rocm-smi-topo".equals(d.probe())
                && d.message().contains("which row is which GPU is not known")), inv.diagnostics().toString());
    }

    @Test
    void numaNodesThatDisagreeWithBusOrderAreWarnedAndNotUsed() throws Exception {
        // The showtopo text puts GPU0-3 on NUMA node 0 and GPU4-7 on node 1; here the cards by bus order are not.
        StringBuilder j = new StringBuilder("{\n");
        for (int i = 0; i < 8; i++) {
            j.append("  \"card").append(i).append("\": {\"Card series\": \"AMD Instinct MI300X\", \"PCI Bus\": \"")
                    .append(MI300X.get(i)).append("\", \"(Topology) Numa Node\": \"").append(i % 2).append("\"},\n");
        }
        Files.writeString(tmp.resolve("rocm-smi.json"), j.append("  \"system\": {}\n}\n").toString());
        Files.writeString(tmp.resolve("rocm-smi-showtopo.txt"),
                RocmSmiTopoParserTest.showtopo(8, (a, b) -> a / 4 == b / 4 ? "XGMI" : "PCIE"));

        Inventory inv = detect();

        assertEquals(1, inv.gpus().get(1).numaNode());
        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.message().contains("did not number the GPUs in bus order")),
                inv.diagnostics().toString());
    }

    @Test
    void aTableOfOtherAddressesIsWarnedAndNotUsed() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", List.of("0000:0c:00.0", "0000:23:00.0"), 2, "");
        Files.writeString(tmp.resolve("amd-smi-topology.txt"),
                AmdSmiTopologyParserTest.table("LINK TYPE TABLE", MI300X.subList(0, 2), "SELF", "XGMI"));

        Inventory inv = detect();

        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.message().contains("[0000:0c:00.0, 0000:22:00.0]")),
                inv.diagnostics().toString());
    }

    @Test
    void showtopoPastedIntoRocmSmiTxtIsRead() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 2, "");
        Files.writeString(tmp.resolve("rocm-smi.txt"), "$ rocm-smi --showtopo\n"
                + RocmSmiTopoParserTest.showtopo(2, (i, j) -> "XGMI"));

        Inventory inv = detect();

        assertEquals("2 GPUs joined over XGMI", inv.interconnect().summary());
        assertEquals("rocm-smi-topo", inv.gpus().get(1).sources().get("links"));
    }

    @Test
    void aBundleWithoutTopologySaysNothingOfIt() throws Exception {
        rocmSmiJson("AMD Instinct MI300X", MI300X, 8, "");

        Inventory inv = detect();

        assertNull(inv.interconnect());
        assertTrue(inv.diagnostics().stream().noneMatch(d -> d.probe().contains("topo")), inv.diagnostics().toString());
    }
}

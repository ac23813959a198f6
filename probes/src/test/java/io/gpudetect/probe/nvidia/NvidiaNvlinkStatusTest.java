package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.GpuLinks.Kind;
import io.gpudetect.model.GpuLinks.Link;
import io.gpudetect.model.GpuLinks.Remote;
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
 * A bundle of pasted nvidia-smi output with {@code nvidia-smi-topo.txt} and {@code nvidia-smi-nvlink.txt}: the matrix
 * names the peers, the link states add the links that are down and the generation; and a matrix of two GPUs joined
 * by all of one GPU's links is read by their form.
 */
class NvidiaNvlinkStatusTest {

    private static final Tables TABLES = Tables.shipped(() -> AkashGpus.absent("not in this test"));

    @TempDir
    Path tmp;

    private static String address(int i) {
        return String.format("0000:%02x:00.0", 0x18 + 0x10 * i);
    }

    private void csv(String name, int n) throws Exception {
        StringBuilder t = new StringBuilder("index, name, pci.bus_id, memory.total [MiB]\n");
        for (int i = 0; i < n; i++) {
            t.append(i).append(", ").append(name).append(", ").append(String.format("00000000:%02X:00.0", 0x18 + 0x10 * i))
                    .append(", 81559 MiB\n");
        }
        Files.writeString(tmp.resolve("nvidia-smi-query.csv"), t.toString());
    }

    /** Every pair of {@code n} GPUs joined by {@code NV<links>}. */
    private void allToAll(int n, int links) throws Exception {
        StringBuilder t = new StringBuilder("       ");
        for (int i = 0; i < n; i++) {
            t.append(" GPU").append(i);
        }
        t.append(" CPU Affinity\n");
        for (int i = 0; i < n; i++) {
            t.append("GPU").append(i);
            for (int j = 0; j < n; j++) {
                t.append(' ').append(i == j ? "X" : "NV" + links);
            }
            t.append(" 0-31\n");
        }
        Files.writeString(tmp.resolve("nvidia-smi-topo.txt"), t.toString());
    }

    /** {@code n} GPUs with {@code links} links each at {@code speed}; {@code down} (gpu, link) pairs inactive. */
    private void nvlink(int n, int links, String speed, int... down) throws Exception {
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < n; i++) {
            t.append("GPU ").append(i).append(": a GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)\n");
            for (int l = 0; l < links; l++) {
                boolean inactive = false;
                for (int d = 0; d < down.length; d += 2) {
                    inactive |= down[d] == i && down[d + 1] == l;
                }
                t.append("\t Link ").append(l).append(": ").append(inactive ? "<inactive>" : speed).append('\n');
            }
        }
        Files.writeString(tmp.resolve("nvidia-smi-nvlink.txt"), t.toString());
    }

    private Inventory detect() throws Exception {
        return new Detector(Probes.defaults()).detect(BundleSource.open(tmp), TABLES);
    }

    @Test
    void aLinkDownOnNvSwitchIsSaidAndTheSpeedGivesTheGeneration() throws Exception {
        csv("NVIDIA H100 80GB HBM3", 8);
        allToAll(8, 18);
        nvlink(8, 18, "26.562 GB/s", 3, 7);

        Inventory inv = detect();

        Interconnect i = inv.interconnect();
        assertEquals("8 GPUs all-to-all through NVSwitch; 1 link down", i.summary());
        assertEquals(1, i.linksDown());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 4, Remote.NVSWITCH, null, 18)),
                inv.gpus().get(0).links().links());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 4, Remote.NVSWITCH, null, 18),
                new Link(Kind.NVLINK, false, null, Remote.UNKNOWN, null, 1)), inv.gpus().get(3).links().links());
    }

    @Test
    void bridgedCardsGetTheirGeneration() throws Exception {
        csv("NVIDIA RTX A6000", 2);
        allToAll(2, 4);
        nvlink(2, 4, "14.062 GB/s");

        Inventory inv = detect();

        assertEquals("2 GPUs joined by an NVLink bridge", inv.interconnect().summary());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 3, Remote.GPU, address(1), 4)), inv.gpus().get(0).links().links());
    }

    @Test
    void withoutTheFileTheVersionIsNotKnown() throws Exception {
        csv("NVIDIA RTX A6000", 2);
        allToAll(2, 4);

        Inventory inv = detect();

        assertNull(inv.gpus().get(0).links().links().get(0).version());
        assertTrue(inv.diagnostics().stream().noneMatch(d -> NvidiaSmiNvlinkParser.PROBE.equals(d.probe())));
    }

    @Test
    void statesForOtherGpusAreNotUsed() throws Exception {
        csv("NVIDIA RTX A6000", 2);
        allToAll(2, 4);
        nvlink(3, 4, "14.062 GB/s", 0, 1);

        Inventory inv = detect();

        GpuLinks links = inv.gpus().get(0).links();
        assertEquals(List.of(new Link(Kind.NVLINK, true, null, Remote.GPU, address(1), 4)), links.links());
        Diagnostic d = inv.diagnostics().stream().filter(x -> NvidiaSmiNvlinkParser.PROBE.equals(x.probe()))
                .findFirst().orElseThrow();
        assertTrue(d.message().contains("the link states are for GPUs [0, 1, 2] and the node has 2 NVIDIA GPUs"),
                d.message());
    }

    @Test
    void statesWhoseUuidIsAnotherGpusAreNotUsed() throws Exception {
        Files.writeString(tmp.resolve("nvidia-smi-query.csv"), "index, name, pci.bus_id, uuid, memory.total [MiB]\n"
                + "0, NVIDIA RTX A6000, 00000000:18:00.0, GPU-aaaaaaaa-0000-0000-0000-000000000001, 49140 MiB\n"
                + "1, NVIDIA RTX A6000, 00000000:28:00.0, GPU-aaaaaaaa-0000-0000-0000-000000000002, 49140 MiB\n");
        allToAll(2, 4);
        // Listed the other way round: the UUIDs say GPU 0 of this output is the node's second GPU.
        Files.writeString(tmp.resolve("nvidia-smi-nvlink.txt"),
                "GPU 0: NVIDIA RTX A6000 (UUID: GPU-aaaaaaaa-0000-0000-0000-000000000002)\n\t Link 0: <inactive>\n"
                + "GPU 1: NVIDIA RTX A6000 (UUID: GPU-aaaaaaaa-0000-0000-0000-000000000001)\n\t Link 0: 14.062 GB/s\n");

        Inventory inv = detect();

        assertEquals(List.of(new Link(Kind.NVLINK, true, null, Remote.GPU, address(1), 4)), inv.gpus().get(0).links().links());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> NvidiaSmiNvlinkParser.PROBE.equals(d.probe())
                && d.message().contains("(GPU 0 is GPU-aaaaaaaa-0000-0000-0000-000000000002, the node's "
                + "GPU-aaaaaaaa-0000-0000-0000-000000000001)")), inv.diagnostics().toString());
    }

    @Test
    void twoSxmModulesJoinedByAllTheirLinksAreOnNvSwitch() throws Exception {
        // A VM given 2 of an HGX A100's 8 GPUs: each GPU's 12 switch links show as NV12 between the two.
        csv("NVIDIA A100-SXM4-80GB", 2);
        allToAll(2, 12);

        Inventory inv = detect();

        assertEquals("nvswitch", inv.interconnect().topology(), inv.interconnect().summary());
        assertEquals(List.of(new Link(Kind.NVLINK, true, null, Remote.NVSWITCH, null, 12)),
                inv.gpus().get(1).links().links());
    }

    @Test
    void twoH100Sxm5OfAnHgxInAVmAreOnNvSwitch() throws Exception {
        // The case the rule was made for: NV18 between 2 GPUs whose device id pci.ids names "H100 SXM5 80GB".
        Files.writeString(tmp.resolve("nvidia-smi-query.csv"), "index, name, pci.bus_id, pci.device_id, memory.total [MiB]\n"
                + "0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 0x233010DE, 81559 MiB\n"
                + "1, NVIDIA H100 80GB HBM3, 00000000:28:00.0, 0x233010DE, 81559 MiB\n");
        allToAll(2, 18);
        nvlink(2, 18, "26.562 GB/s");

        Inventory inv = detect();

        assertEquals("2 GPUs all-to-all through NVSwitch", inv.interconnect().summary());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 4, Remote.NVSWITCH, null, 18)), inv.gpus().get(0).links().links());
    }

    /** Two GPUs of device {@code deviceId} (packed as nvidia-smi prints it), their form placed by pci.ids. */
    private void csvWithDevice(String name, String deviceId) throws Exception {
        Files.writeString(tmp.resolve("nvidia-smi-query.csv"), "index, name, pci.bus_id, pci.device_id, memory.total [MiB]\n"
                + "0, " + name + ", 00000000:18:00.0, " + deviceId + ", 81559 MiB\n"
                + "1, " + name + ", 00000000:28:00.0, " + deviceId + ", 81559 MiB\n");
    }

    @Test
    void twoOfAFourGpuHgxH100InAVmKeepTheirOtherLinksApart() throws Exception {
        // NV6 between two H100 SXM5, each with 18 links up: 12 lead to the board's other two GPUs, not on this host.
        csvWithDevice("NVIDIA H100 80GB HBM3", "0x233010DE");
        allToAll(2, 6);
        nvlink(2, 18, "26.562 GB/s");

        Inventory inv = detect();

        assertEquals("2 GPUs joined over NVLink", inv.interconnect().summary());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 4, Remote.GPU, address(1), 6),
                new Link(Kind.NVLINK, true, 4, Remote.UNKNOWN, null, 12)), inv.gpus().get(0).links().links());
    }

    @Test
    void twoV100OfADgx2InAVmAreOnNvSwitchByTheirLinkStates() throws Exception {
        // NV6 between two V100 SXM3 whose 6 links are all up and all between the two: switch links, as no board
        // without NVSwitch puts all of a module's links on one peer.
        csvWithDevice("Tesla V100-SXM3-32GB", "0x1DB810DE");
        allToAll(2, 6);
        nvlink(2, 6, "25.781 GB/s");

        Inventory inv = detect();

        assertEquals("2 GPUs all-to-all through NVSwitch", inv.interconnect().summary());
        assertEquals(List.of(new Link(Kind.NVLINK, true, 2, Remote.NVSWITCH, null, 6)), inv.gpus().get(1).links().links());
    }

    @Test
    void sixLinksBetweenTwoModulesWithoutLinkStatesAreNotKnown() throws Exception {
        csvWithDevice("Tesla V100-SXM3-32GB", "0x1DB810DE");
        allToAll(2, 6);

        Inventory inv = detect();

        assertNull(inv.gpus().get(0).links());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.message().startsWith("the 2 GPUs are joined by NV6")),
                inv.diagnostics().toString());
    }

    @Test
    void twoPcieCardsJoinedByTwelveLinksAreBridged() throws Exception {
        csv("NVIDIA H100 PCIe", 2);
        allToAll(2, 12);

        Inventory inv = detect();

        assertEquals("2 GPUs joined by an NVLink bridge", inv.interconnect().summary());
    }

    @Test
    void eighteenLinksBetweenTwoGpusOfUnknownFormAreNotKnown() throws Exception {
        // NV18 between two GPUs: two of an 8-GPU HGX H100 in a VM, or an H200 NVL pair on a 2-way bridge. The name
        // alone (no device id here, no Akash table) places neither.
        csv("NVIDIA H100 80GB HBM3", 2);
        allToAll(2, 18);
        nvlink(2, 18, "26.562 GB/s");

        Inventory inv = detect();

        assertNull(inv.gpus().get(0).links());
        assertNull(inv.interconnect());
        Diagnostic d = inv.diagnostics().stream().filter(x -> NvidiaSmiTopoParser.PROBE.equals(x.probe()))
                .findFirst().orElseThrow();
        assertEquals(Diagnostic.Severity.INFO, d.severity());
        assertTrue(d.message().contains("joined by NV18") && d.message().contains("their links are not known"),
                d.message());
    }

    @Test
    void aGpuWithAllLinksInactiveAmongLinkedOnesIsWarned() throws Exception {
        csv("NVIDIA H100 80GB HBM3", 4);
        StringBuilder t = new StringBuilder("       GPU0 GPU1 GPU2 GPU3 CPU Affinity\n");
        for (int i = 0; i < 4; i++) {
            t.append("GPU").append(i);
            for (int j = 0; j < 4; j++) {
                t.append(' ').append(i == j ? "X" : i == 2 || j == 2 ? "SYS" : "NV18");
            }
            t.append(" 0-31\n");
        }
        Files.writeString(tmp.resolve("nvidia-smi-topo.txt"), t.toString());
        Files.writeString(tmp.resolve("nvidia-smi-nvlink.txt"), "GPU 0: x\n\t Link 0: 26.562 GB/s\nGPU 1: x\n"
                + "\t Link 0: 26.562 GB/s\nGPU 2: x\nNVML: Unable to retrieve NVLink information as all links are inactive\n"
                + "GPU 3: x\n\t Link 0: 26.562 GB/s\n");

        Inventory inv = detect();

        assertEquals(List.of(), inv.gpus().get(2).links().links());
        assertEquals(false, inv.interconnect().allPairsJoined());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING
                && d.message().equals("GPU 2 (" + address(2) + "): all its NVLinks are inactive while other GPUs' are up")),
                inv.diagnostics().toString());
    }
}

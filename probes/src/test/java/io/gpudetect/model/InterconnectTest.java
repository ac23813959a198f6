package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node's summary of its GPUs' links, for each shape a node's GPUs come in. */
class InterconnectTest {

    private static final GpuLinks.Kind NV = GpuLinks.Kind.NVLINK;

    private static String address(int i) {
        return String.format("0000:%02x:00.0", 0x10 + i);
    }

    private static Gpu gpu(int i, GpuInterface iface, GpuLinks links) {
        return Gpu.builder("test").pciAddress(PciAddress.of(address(i))).interfaceType(iface).links(links).build();
    }

    private static GpuLinks.Link toGpu(int peer, int count) {
        return new GpuLinks.Link(NV, true, 2, GpuLinks.Remote.GPU, address(peer), count);
    }

    /** Eight GPUs, each with {@code up} links up to the switches and {@code down[i]} down. */
    private static List<Gpu> onSwitch(int n, int up, int... down) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<GpuLinks.Link> links = new ArrayList<>();
            int d = i < down.length ? down[i] : 0;
            links.add(new GpuLinks.Link(NV, true, 4, GpuLinks.Remote.NVSWITCH, null, up - d));
            if (d > 0) {
                links.add(new GpuLinks.Link(NV, false, null, GpuLinks.Remote.UNKNOWN, null, d));
            }
            gpus.add(gpu(i, GpuInterface.SXM, new GpuLinks(links, null)));
        }
        return gpus;
    }

    @Test
    void eightGpusOnNvswitchAreAllToAll() {
        Interconnect i = Interconnect.of(onSwitch(8, 18));
        assertEquals("nvswitch", i.topology());
        assertEquals("8 GPUs all-to-all through NVSwitch", i.summary());
        assertTrue(i.allPairsJoined());
        assertEquals(144, i.linksUp());
        assertEquals(0, i.linksDown());
        assertEquals("nvlink", i.kind());
    }

    @Test
    void aLinkDownIsCountedAndSaid() {
        Interconnect i = Interconnect.of(onSwitch(8, 18, 0, 0, 0, 1));
        assertEquals("8 GPUs all-to-all through NVSwitch; 1 link down", i.summary());
        assertEquals(1, i.linksDown());
        assertEquals(143, i.linksUp());
    }

    @Test
    void twoPcieCardsOnABridge() {
        List<Gpu> gpus = List.of(gpu(0, GpuInterface.PCIE, new GpuLinks(List.of(toGpu(1, 4)), null)),
                gpu(1, GpuInterface.PCIE, new GpuLinks(List.of(toGpu(0, 4)), null)));
        Interconnect i = Interconnect.of(gpus);
        assertEquals("bridge", i.topology());
        assertEquals("2 GPUs joined by an NVLink bridge", i.summary());
        assertTrue(i.allPairsJoined());
        // A card of unknown form (an RTX A6000, which no table places) linked straight to another is bridged too.
        List<Gpu> unknownForm = List.of(gpu(0, null, new GpuLinks(List.of(toGpu(1, 4)), null)),
                gpu(1, null, new GpuLinks(List.of(toGpu(0, 4)), null)));
        assertEquals("bridge", Interconnect.of(unknownForm).topology());
    }

    @Test
    void fourGpusLinkedInEveryPairAreAllToAll() {
        int[][] pairs = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {1, 2, 2}, {1, 3, 1}, {2, 3, 2}};
        List<List<GpuLinks.Link>> links = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int[] p : pairs) {
            links.get(p[0]).add(toGpu(p[1], p[2]));
            links.get(p[1]).add(toGpu(p[0], p[2]));
        }
        List<Gpu> gpus = new ArrayList<>();
        for (int g = 0; g < 4; g++) {
            gpus.add(gpu(g, GpuInterface.SXM, new GpuLinks(links.get(g), null)));
        }
        Interconnect i = Interconnect.of(gpus);
        assertEquals("all-to-all", i.topology());
        assertEquals("4 GPUs all-to-all over NVLink", i.summary());
    }

    @Test
    void dgx1IsAHybridCubeMeshNotAllToAll() {
        // Two fully linked quads (0-3, 4-7) and each GPU to its twin in the other quad: 4 peers each.
        List<List<GpuLinks.Link>> links = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            links.add(new ArrayList<>());
        }
        for (int q = 0; q < 8; q += 4) {
            for (int a = q; a < q + 4; a++) {
                for (int b = a + 1; b < q + 4; b++) {
                    links.get(a).add(toGpu(b, 1));
                    links.get(b).add(toGpu(a, 1));
                }
            }
        }
        for (int a = 0; a < 4; a++) {
            links.get(a).add(toGpu(a + 4, 2));
            links.get(a + 4).add(toGpu(a, 2));
        }
        List<Gpu> gpus = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            gpus.add(gpu(g, GpuInterface.SXM, new GpuLinks(links.get(g), null)));
        }
        Interconnect i = Interconnect.of(gpus);
        assertEquals("hybrid-cube-mesh", i.topology());
        assertFalse(i.allPairsJoined());
    }

    @Test
    void cardsInBridgedPairs() {
        List<Gpu> gpus = new ArrayList<>();
        for (int g = 0; g < 4; g++) {
            gpus.add(gpu(g, GpuInterface.PCIE, new GpuLinks(List.of(toGpu(g ^ 1, 4)), null)));
        }
        Interconnect i = Interconnect.of(gpus);
        assertEquals("pairs", i.topology());
        assertEquals("4 GPUs in 2 pairs joined by NVLink bridges", i.summary());
        assertFalse(i.allPairsJoined());
    }

    @Test
    void noLinksIsAFactAndNothingReadIsNull() {
        List<Gpu> none = List.of(gpu(0, GpuInterface.PCIE, new GpuLinks(List.of(), null)),
                gpu(1, GpuInterface.PCIE, new GpuLinks(List.of(), null)));
        Interconnect i = Interconnect.of(none);
        assertEquals("none", i.topology());
        assertEquals("no GPU links between the 2 GPUs", i.summary());
        assertFalse(i.allPairsJoined());
        assertNull(Interconnect.of(List.of(gpu(0, GpuInterface.PCIE, null))));
        // A card whose bridge is not fitted has all its links down: unlinked, not a fault.
        GpuLinks unbridged = new GpuLinks(List.of(new GpuLinks.Link(NV, false, null, GpuLinks.Remote.UNKNOWN, null, 12)), null);
        assertEquals(0, Interconnect.of(List.of(gpu(0, GpuInterface.PCIE, unbridged), gpu(1, GpuInterface.PCIE, unbridged)))
                .linksDown());
    }

    @Test
    void theCliqueIsGivenOnlyWhenEveryRegisteredGpuAgrees() {
        GpuLinks.Fabric a = new GpuLinks.Fabric("9277d399-0674-44a9-b64e-d85bb19ce2b0", 32766L, "completed", "NVML_SUCCESS");
        GpuLinks.Fabric b = new GpuLinks.Fabric("9277d399-0674-44a9-b64e-d85bb19ce2b0", 1L, "completed", "NVML_SUCCESS");
        GpuLinks.Fabric pending = new GpuLinks.Fabric(null, null, "in-progress", "NVML_SUCCESS");
        GpuLinks.Link sw = new GpuLinks.Link(NV, true, 5, GpuLinks.Remote.NVSWITCH, null, 18);
        List<Gpu> same = List.of(gpu(0, GpuInterface.SXM, new GpuLinks(List.of(sw), a)),
                gpu(1, GpuInterface.SXM, new GpuLinks(List.of(sw), a)));
        assertEquals("9277d399-0674-44a9-b64e-d85bb19ce2b0.32766", Interconnect.of(same).clique());
        List<Gpu> differ = List.of(gpu(0, GpuInterface.SXM, new GpuLinks(List.of(sw), a)),
                gpu(1, GpuInterface.SXM, new GpuLinks(List.of(sw), b)));
        assertNull(Interconnect.of(differ).clique());
        List<Gpu> notYet = List.of(gpu(0, GpuInterface.SXM, new GpuLinks(List.of(sw), a)),
                gpu(1, GpuInterface.SXM, new GpuLinks(List.of(sw), pending)));
        assertNull(Interconnect.of(notYet).clique());
        assertNull(new GpuLinks.Fabric("9277d399-0674-44a9-b64e-d85bb19ce2b0", 3L, "completed", "NVML_ERROR_UNKNOWN").clique());
    }
}

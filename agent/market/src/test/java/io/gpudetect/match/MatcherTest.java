package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MatcherTest {

    private static List<OfferedGpu> cards(int n, String model, int gi, String iface) {
        return new ArrayList<>(Collections.nCopies(n, new OfferedGpu(Vendor.NVIDIA, model, gi, iface, false, null, null)));
    }

    private static NodeOffer node(String name, List<OfferedGpu> gpus, int allocatable, int inUse) {
        return NodeOffer.of(name, gpus, Map.of("nvidia", allocatable), Map.of("nvidia", inUse), null);
    }

    private static Placement placement(String name, int replicas, int units, GpuChoice... choices) {
        return new Placement(name, "dc", name, replicas, new GpuRequest(units, List.of(choices)));
    }

    private static GpuChoice model(String model) {
        return new GpuChoice(Vendor.NVIDIA, model, null, false, null, null);
    }

    private static NodeVerdict verdict(MatchResult r, int placement, String node) {
        return r.placements().get(placement).nodes().stream().filter(v -> v.node().equals(node)).findFirst().orElseThrow();
    }

    @Test
    void allUnitsOfAReplicaComeFromOneNode() {
        List<NodeOffer> nodes = List.of(node("a", cards(2, "h100", 80, "sxm"), 2, 0),
                node("b", cards(2, "h100", 80, "sxm"), 2, 0));
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("p", 1, 4, model("h100")))), "t", nodes);
        assertFalse(r.fits(), "2 + 2 cards on two nodes do not make one replica of 4");
        assertEquals("too few GPUs: 2 matching GPUs (h100 80Gi sxm), 4 asked per replica", verdict(r, 0, "a").reason());
    }

    @Test
    void replicasSpreadOverNodesAndANodeTakesSeveral() {
        List<NodeOffer> nodes = List.of(node("a", cards(4, "a100", 80, "sxm"), 4, 0),
                node("b", cards(1, "a100", 80, "sxm"), 1, 0));
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("p", 3, 2, model("a100")))), "t", nodes);
        assertEquals(List.of("a", "a"), r.placements().get(0).assigned());
        assertEquals(2, r.placements().get(0).placed());
        assertFalse(r.fits());
        MatchResult two = Matcher.match(new Demand("t", List.of(placement("p", 2, 2, model("a100")))), "t", nodes);
        assertTrue(two.fits());
    }

    @Test
    void inUseUnitsAreNotFree() {
        List<NodeOffer> nodes = List.of(node("busy", cards(8, "h100", 80, "sxm"), 8, 8),
                node("half", cards(8, "h100", 80, "sxm"), 8, 5));
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("p", 1, 4, model("h100")))), "t", nodes);
        assertFalse(r.fits());
        assertEquals("all units in use: 8 nvidia allocatable, 8 in use", verdict(r, 0, "busy").reason());
        assertEquals("too few free units: 3 nvidia free of 8, 4 asked per replica", verdict(r, 0, "half").reason());
        assertEquals(3, verdict(r, 0, "half").free());
    }

    @Test
    void ramIsTheCardsSizeExactlyAndInterfaceSxmCoversSxm5() {
        List<NodeOffer> nodes = List.of(node("n", cards(1, "h100", 80, "sxm5"), 1, 0));
        GpuChoice exact94 = new GpuChoice(Vendor.NVIDIA, "h100", 94, false, null, null);
        GpuChoice exact40 = new GpuChoice(Vendor.NVIDIA, "h100", 40, false, null, null);
        GpuChoice atLeast40 = new GpuChoice(Vendor.NVIDIA, "h100", 40, true, "sxm", null);
        GpuChoice pcie = new GpuChoice(Vendor.NVIDIA, "h100", 80, false, "pcie", null);
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("a", 1, 1, exact94),
                placement("b", 1, 1, exact40), placement("c", 1, 1, atLeast40), placement("d", 1, 1, pcie))), "t", nodes);
        assertEquals("too little VRAM: h100 has 80Gi, 94Gi asked", verdict(r, 0, "n").reason());
        assertEquals("VRAM differs: h100 has 80Gi, 40Gi asked", verdict(r, 1, "n").reason());
        assertTrue(verdict(r, 2, "n").canServe());
        assertEquals("interface differs: h100 is sxm, pcie asked", verdict(r, 3, "n").reason());
    }

    @Test
    void aCardOfUnknownInterfaceServesOnlyRequestsThatAskForNone() {
        List<NodeOffer> nodes = List.of(node("n", cards(2, "h100", 80, null), 2, 0));
        GpuChoice sxm = new GpuChoice(Vendor.NVIDIA, "h100", 80, false, "sxm", null);
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("a", 1, 2, sxm),
                placement("b", 1, 2, model("h100")))), "t", nodes);
        assertEquals("interface unknown: h100 80Gi, sxm asked", verdict(r, 0, "n").reason());
        assertTrue(verdict(r, 1, "n").canServe());
    }

    @Test
    void migCardsServeSlicesOnly() {
        OfferedGpu mig = new OfferedGpu(Vendor.NVIDIA, "a100", 40, "sxm4", true, List.of("1g.5gb", "1g.5gb", "3g.20gb"), null);
        NodeOffer n = NodeOffer.of("m", List.of(mig), Map.of(), Map.of("mig-1g.5gb", 1), null);
        GpuChoice slice = new GpuChoice(Vendor.NVIDIA, "a100", null, false, null, "1g.5gb");
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("whole", 1, 1, model("a100")),
                placement("slices", 1, 1, slice), placement("more", 1, 2, slice))), "t", List.of(n));
        assertEquals("MIG is on: a100 is offered only as slices (1g.5gb, 1g.5gb, 3g.20gb)", verdict(r, 0, "m").reason());
        assertTrue(verdict(r, 1, "m").canServe());
        assertEquals("mig-1g.5gb", verdict(r, 1, "m").unitKind());
        assertEquals("too few free units: 1 mig-1g.5gb free of 2, 2 asked per replica", verdict(r, 2, "m").reason());
    }

    @Test
    void theWholeDemandSharesTheNodes() {
        // One 8-card node: a 6-card placement and a 4-card placement cannot both have it.
        List<NodeOffer> nodes = List.of(node("big", cards(8, "h100", 80, "sxm"), 8, 0));
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("small", 1, 4, model("h100")),
                placement("large", 1, 6, model("h100")))), "t", nodes);
        assertFalse(r.fits());
        assertTrue(r.placements().get(1).fits(), "the larger replica is placed first");
        assertFalse(r.placements().get(0).fits());
        assertTrue(verdict(r, 0, "big").canServe(), "alone, the node could serve it");
    }

    @Test
    void bestFitKeepsTheBigNodeForTheBigReplica() {
        List<NodeOffer> nodes = List.of(node("big", cards(8, "h100", 80, "sxm"), 8, 0),
                node("small", cards(2, "h100", 80, "sxm"), 2, 0));
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("one", 1, 1, model("h100")),
                placement("eight", 1, 8, model("h100")))), "t", nodes);
        assertTrue(r.fits());
        assertEquals(List.of("small"), r.placements().get(0).assigned());
        assertEquals(List.of("big"), r.placements().get(1).assigned());
    }

    @Test
    void explainsWhatTheNodeHas() {
        NodeOffer amd = NodeOffer.of("amd", List.of(new OfferedGpu(Vendor.AMD, "mi300x", 192, "oam", false, null, null)),
                Map.of(), Map.of(), null);
        NodeOffer none = NodeOffer.of("cpu", List.of(), Map.of(), Map.of(), null);
        MatchResult r = Matcher.match(new Demand("t", List.of(placement("p", 1, 1, model("h100"), model("a100")))), "t",
                List.of(amd, none, NodeOffer.missing("gone"), node("n", cards(2, "rtx4090", 24, "pcie"), 2, 0)));
        assertEquals("no nvidia GPU: has 1 x amd mi300x 192Gi oam", verdict(r, 0, "amd").reason());
        assertEquals("no GPUs on this node", verdict(r, 0, "cpu").reason());
        assertEquals("no capacity record for this node", verdict(r, 0, "gone").reason());
        assertEquals("no such model: asked nvidia h100 or nvidia a100, has 2 x nvidia rtx4090 24Gi pcie",
                verdict(r, 0, "n").reason());
    }

    @Test
    void cpuOnlyPlacementsAlwaysFit() {
        MatchResult r = Matcher.match(new Demand("t", List.of(new Placement("web", "dc", "web", 3, GpuRequest.none()))),
                "t", List.of());
        assertTrue(r.fits());
        assertEquals(3, r.placements().get(0).placed());
        assertTrue(r.placements().get(0).nodes().isEmpty());
    }
}

package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code match --gpu ...,nvlink=all}: every pair of the GPUs a replica gets joined over NVLink. */
class NvlinkMatchTest {

    private static String address(int i) {
        return String.format("0000:%02x:00.0", 0x10 + i);
    }

    private static OfferedGpu gpu(String model, String iface, int i, GpuLinks links) {
        return new OfferedGpu(Vendor.NVIDIA, model, 80, iface, false, null,
                new OfferedGpu.Platform(address(i), null, null, null, links));
    }

    /** Eight H100 SXM, each with 18 links to the NVSwitches. */
    private static NodeOffer hgx(String name) {
        List<OfferedGpu> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            gpus.add(gpu("h100", "sxm", i, new GpuLinks(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 4,
                    GpuLinks.Remote.NVSWITCH, null, 18)), null)));
        }
        return NodeOffer.of(name, gpus, Map.of("nvidia", 8), Map.of("nvidia", 0), null);
    }

    /** Four PCIe cards bridged two by two: 0-1 and 2-3. */
    private static NodeOffer bridgedPairs(String name) {
        List<OfferedGpu> gpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gpus.add(gpu("h100", "pcie", i, new GpuLinks(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 4,
                    GpuLinks.Remote.GPU, address(i ^ 1), 12)), null)));
        }
        return NodeOffer.of(name, gpus, Map.of("nvidia", 4), Map.of("nvidia", 0), null);
    }

    /** Four cards whose record says nothing of links (an agent before issue 40). */
    private static NodeOffer unknown(String name) {
        List<OfferedGpu> gpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gpus.add(gpu("h100", "pcie", i, null));
        }
        return NodeOffer.of(name, gpus, Map.of("nvidia", 4), Map.of("nvidia", 0), null);
    }

    private static MatchResult match(String request, NodeOffer... nodes) throws InvalidInputException {
        return Matcher.match(new Demand("t", List.of(CapabilityRequest.parse(request, 0))), "t", List.of(nodes));
    }

    private static NodeVerdict verdict(MatchResult r, String node) {
        return r.placements().get(0).nodes().stream().filter(v -> v.node().equals(node)).findFirst().orElseThrow();
    }

    @Test
    void eightGpusOnNvswitchServeEightJoined() throws Exception {
        MatchResult r = match("vendor=nvidia,model=h100,count=8,nvlink=all", hgx("hgx"));
        assertTrue(r.fits());
        assertEquals("8 x nvidia h100, joined pairwise over NVLink", r.placements().get(0).request());
    }

    @Test
    void bridgedPairsServePairsAndSayWhyNotFour() throws Exception {
        MatchResult four = match("vendor=nvidia,model=h100,count=4,nvlink=all", bridgedPairs("ws"));
        assertFalse(four.fits());
        assertEquals("nvlink=all: only 2 of the 4 matching GPUs are joined pairwise over NVLink, 4 asked per replica",
                verdict(four, "ws").reason());
        assertTrue(match("vendor=nvidia,model=h100,count=4", bridgedPairs("ws")).fits(), "without the key, 4 fit");
        MatchResult pairs = match("vendor=nvidia,model=h100,count=2,replicas=2,nvlink=all", bridgedPairs("ws"));
        assertTrue(pairs.fits(), "each replica gets one bridged pair");
        assertEquals(List.of("ws", "ws"), pairs.placements().get(0).assigned());
        assertFalse(match("vendor=nvidia,model=h100,count=2,replicas=3,nvlink=all", bridgedPairs("ws")).fits());
    }

    @Test
    void aNodeThatDidNotPublishLinksIsRefusedWithThatSaid() throws Exception {
        MatchResult r = match("vendor=nvidia,count=2,nvlink=all", unknown("old"));
        assertFalse(r.fits());
        assertTrue(verdict(r, "old").reason().contains("does not say its GPUs' links"), verdict(r, "old").reason());
        assertTrue(match("vendor=nvidia,count=1,nvlink=all", unknown("old")).fits(), "one GPU has no pair to join");
    }

    @Test
    void aRecordFilesLinksAreReadAndMatched() throws Exception {
        String record = """
                metadata: {name: ws}
                spec:
                  gpus:
                  - vendor: nvidia
                    model: rtxa6000
                    pciAddress: "0000:4f:00.0"
                    links: {links: [{kind: nvlink, up: true, version: 3, remote: gpu, remotePciAddress: "0000:52:00.0", count: 4}]}
                  - vendor: nvidia
                    model: rtxa6000
                    pciAddress: "0000:52:00.0"
                    links: {links: [{kind: nvlink, up: true, version: 3, remote: gpu, remotePciAddress: "0000:4f:00.0", count: 4}]}
                  - {vendor: nvidia, model: rtxa6000, pciAddress: "0000:81:00.0", links: {links: []}}
                  allocatable: {nvidia.com/gpu: 3}
                """;
        List<NodeOffer> offers = new CapacityRecordOffers(new CapacityRecordOffers.RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                return RecordSet.read(() -> new java.io.StringReader(record), "records.yaml", RecordSet.DEFAULT_YAML_LIMIT);
            }

            @Override
            public String describe() {
                return "records.yaml";
            }
        }).offers();
        assertEquals(4, offers.get(0).gpus().get(0).platform().links().upLinksTo("0000:52:00.0"));
        assertTrue(Matcher.match(new Demand("t", List.of(CapabilityRequest.parse("vendor=nvidia,count=2,nvlink=all", 0))),
                "t", offers).fits());
        MatchResult three = Matcher.match(new Demand("t", List.of(CapabilityRequest.parse(
                "vendor=nvidia,count=3,nvlink=all", 0))), "t", offers);
        assertEquals("nvlink=all: only 2 of the 3 matching GPUs are joined pairwise over NVLink, 3 asked per replica",
                verdict(three, "ws").reason());
        InvalidInputException bad = assertThrows(InvalidInputException.class, () -> RecordSet.read(
                () -> new java.io.StringReader(record.replace("version: 3, remote: gpu, remotePciAddress: \"0000:52",
                        "version: three, remote: gpu, remotePciAddress: \"0000:52")), "records.yaml",
                RecordSet.DEFAULT_YAML_LIMIT).records());
        assertTrue(bad.getMessage().contains("links.links[0].version"), bad.getMessage());
    }

    @Test
    void onlyAllIsAValue() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> CapabilityRequest.parse("vendor=nvidia,nvlink=yes", 0));
        assertTrue(e.getMessage().contains("nvlink 'yes' is not all"), e.getMessage());
    }
}

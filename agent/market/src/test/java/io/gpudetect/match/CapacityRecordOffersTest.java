package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityRecordOffersTest {

    private static CapacityRecordOffers.RecordStore text(String text) {
        return new CapacityRecordOffers.RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                return RecordSet.read(() -> new java.io.StringReader(text), "records.yaml", RecordSet.DEFAULT_YAML_LIMIT);
            }

            @Override
            public String describe() {
                return "records.yaml";
            }
        };
    }

    private static List<NodeOffer> offers(String text) throws InvalidInputException {
        return new CapacityRecordOffers(text(text)).offers();
    }

    @Test
    void readsARecordAsTheCapacityRecordSpecShapesIt() throws InvalidInputException {
        List<NodeOffer> offers = offers("""
                apiVersion: gpu-detect.io/v1alpha1
                kind: GpuCapacity
                metadata: {name: node-a}
                spec:
                  gpus:
                  - {vendor: nvidia, model: A100, memoryGi: 40, interface: SXM4, pciAddress: "0000:17:00.0", partitioned: true}
                  - {vendor: nvidia, model: h100, memoryGi: 80, interface: pcie, pciAddress: "0000:65:00.0", uuid: GPU-1}
                  slices:
                  - {gpuPciAddress: "0000:17:00.0", kind: mig, profile: 3g.20gb, gpuInstanceId: 1}
                  - {gpuPciAddress: "0000:17:00.0", kind: mig, profile: 3g.20gb, gpuInstanceId: 2}
                  - {gpuPciAddress: "0000:99:00.0", kind: mig, profile: 7g.80gb}
                  allocatable: {nvidia.com/gpu: 1, nvidia.com/mig-3g.20gb: "2"}
                  requested: {nvidia.com/gpu: 1}
                status:
                  lastPassOutcome: complete
                  lastGoodPass: 2026-05-01T10:00:00Z
                """);
        NodeOffer a = offers.get(0);
        assertEquals("node-a", a.node());
        assertEquals(new OfferedGpu(Vendor.NVIDIA, "a100", 40, "sxm", true, List.of("3g.20gb", "3g.20gb"),
                new OfferedGpu.Platform("0000:17:00.0", null, null, null, null)),
                a.gpus().get(0), "slices of other cards are not this card's");
        assertEquals(new OfferedGpu(Vendor.NVIDIA, "h100", 80, "pcie", false, List.of(),
                new OfferedGpu.Platform("0000:65:00.0", null, null, null, null)), a.gpus().get(1));
        assertEquals(Map.of("nvidia", 1, "mig-3g.20gb", 2), a.allocatable());
        assertEquals(0, a.free("nvidia"));
        assertEquals(2, a.free("mig-3g.20gb"));
        assertEquals(Instant.parse("2026-05-01T10:00:00Z"), a.lastGoodPass());
    }

    @Test
    void readsTheInventorysOwnPartitioningInHandWrittenFiles() throws InvalidInputException {
        NodeOffer n = offers("""
                - metadata: {name: b}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: a100, partitioning: {kind: mig, enabled: true, instances: [{profile: 1g.5gb}]}}
                    inUse: {nvidia.com/mig-1g.5gb: 1}
                """).get(0);
        assertEquals(List.of("1g.5gb"), n.gpus().get(0).profiles());
        assertEquals(0, n.free("mig-1g.5gb"));
    }

    @Test
    void acceptsListsDocumentsAndKubectlLists() throws InvalidInputException {
        String one = "{kind: GpuCapacity, metadata: {name: %s}, spec: {gpus: [{vendor: amd, model: mi300x}]}}";
        assertEquals(2, offers("[" + one.formatted("a") + ", " + one.formatted("b") + "]").size());
        assertEquals(2, offers(one.formatted("a") + "\n---\n" + one.formatted("b") + "\n").size());
        List<NodeOffer> list = offers("{apiVersion: v1, kind: List, items: [" + one.formatted("b")
                + ", {kind: Node, metadata: {name: a}}, {kind: Node, metadata: {name: b}}, {kind: Pod}]}");
        assertEquals(List.of("a", "b"), list.stream().map(NodeOffer::node).toList());
        assertTrue(list.get(0).recordMissing());
        assertEquals(1, list.get(1).free("amd"), "no allocatable figure: every card counts");
    }

    @Test
    void badValuesNameTheRecordAndLine() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> offers("""
                - kind: GpuCapacity
                  metadata: {name: node-a}
                  spec:
                    allocatable:
                      nvidia.com/gpu: eight
                """));
        assertEquals("[0](node-a).allocatable.nvidia.com/gpu", e.path());
        assertEquals(5, e.line());
        assertTrue(e.getMessage().startsWith("records.yaml:5: "), e.getMessage());
        InvalidInputException time = assertThrows(InvalidInputException.class,
                () -> offers("- {kind: GpuCapacity, metadata: {name: a}, status: {lastGoodPass: yesterday}}"));
        assertTrue(time.problem().contains("expected a time"), time.getMessage());
        InvalidInputException twice = assertThrows(InvalidInputException.class,
                () -> offers("- {metadata: {name: a}}\n- {metadata: {name: a}}"));
        assertTrue(twice.problem().contains("a second record for node a"), twice.getMessage());
    }

    /** A GPU's fields are read as GpuField declares them: each wrong value named by its path, with what was expected. */
    @Test
    void badGpuFieldsNameTheFieldAndWhatWasExpected() {
        InvalidInputException iface = assertThrows(InvalidInputException.class,
                () -> offers("- {metadata: {name: a}, gpus: [{vendor: nvidia, model: h100, interface: nvlink}]}"));
        assertEquals("[0](a).gpus[0].interface", iface.path());
        assertEquals("expected pcie, sxm, oam or integrated, found 'nvlink'", iface.problem());
        InvalidInputException health = assertThrows(InvalidInputException.class,
                () -> offers("- {metadata: {name: a}, gpus: [{vendor: nvidia, health: fine}]}"));
        assertEquals("[0](a).gpus[0].health", health.path());
        assertEquals("expected ok, degraded, failed or lost, found 'fine'", health.problem());
        InvalidInputException address = assertThrows(InvalidInputException.class,
                () -> offers("- {metadata: {name: a}, gpus: [{vendor: nvidia, pciAddress: gpu0}]}"));
        assertEquals("[0](a).gpus[0].pciAddress", address.path());
        assertEquals("expected a PCI address such as 0000:17:00.0, found 'gpu0'", address.problem());
        InvalidInputException memory = assertThrows(InvalidInputException.class,
                () -> offers("- {metadata: {name: a}, gpus: [{vendor: nvidia, memoryGi: {size: 80}}]}"));
        assertEquals("[0](a).gpus[0].memoryGi", memory.path());
        assertEquals("expected one value, found a mapping", memory.problem());
        // SXM4 is folded to sxm as Akash folds it.
        assertEquals("sxm", assertDoesNotThrowOffers(
                "- {metadata: {name: a}, gpus: [{vendor: nvidia, model: a100, interface: SXM4}]}"));
    }

    private static String assertDoesNotThrowOffers(String text) {
        try {
            return offers(text).get(0).gpus().get(0).interfaceType();
        } catch (InvalidInputException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    @Test
    void resourceNamesBecomeUnitKinds() {
        assertEquals("nvidia", CapacityRecordOffers.unitKind("nvidia.com/gpu"));
        assertEquals("amd", CapacityRecordOffers.unitKind("amd.com/gpu"));
        assertEquals("intel", CapacityRecordOffers.unitKind("gpu.intel.com/i915"));
        assertEquals("mig-1g.10gb", CapacityRecordOffers.unitKind("nvidia.com/mig-1g.10gb"));
        assertEquals("nvidia", CapacityRecordOffers.unitKind("nvidia"));
    }
}

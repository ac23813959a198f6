package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityRecordsTest {

    private static CapacityRecords.RecordStore text(String text) {
        return new CapacityRecords.RecordStore() {
            @Override
            public List<YamlNode> objects() throws InvalidInputException {
                return YamlNode.parseAll(text, "records.yaml");
            }

            @Override
            public String describe() {
                return "records.yaml";
            }
        };
    }

    private static List<NodeOffer> offers(String text) throws InvalidInputException {
        return new CapacityRecords(text(text)).offers();
    }

    @Test
    void readsARecordAsTheCapacityRecordSpecShapesIt() throws InvalidInputException {
        List<NodeOffer> offers = offers("""
                apiVersion: gpu-detect.io/v1alpha1
                kind: GpuCapacity
                metadata: {name: node-a}
                spec:
                  gpus:
                  - vendor: nvidia
                    model: A100
                    memoryGi: 40
                    interface: SXM4
                    partitioning: {kind: mig, enabled: true, instances: [{profile: 3g.20gb}, {profile: 3g.20gb}]}
                  - {vendor: nvidia, model: h100, memoryGi: 80, interface: pcie}
                  allocatable: {nvidia.com/gpu: 1, nvidia.com/mig-3g.20gb: "2"}
                status:
                  inUse: {nvidia.com/gpu: 1}
                  lastGoodPass: 2026-05-01T10:00:00Z
                """);
        NodeOffer a = offers.get(0);
        assertEquals("node-a", a.node());
        assertEquals(new OfferedGpu(Vendor.NVIDIA, "a100", 40, "sxm", true, List.of("3g.20gb", "3g.20gb")),
                a.gpus().get(0));
        assertEquals(Map.of("nvidia", 1, "mig-3g.20gb", 2), a.allocatable());
        assertEquals(0, a.free("nvidia"));
        assertEquals(2, a.free("mig-3g.20gb"));
        assertEquals(Instant.parse("2026-05-01T10:00:00Z"), a.lastGoodPass());
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

    @Test
    void resourceNamesBecomeUnitKinds() {
        assertEquals("nvidia", CapacityRecords.unitKind("nvidia.com/gpu"));
        assertEquals("amd", CapacityRecords.unitKind("amd.com/gpu"));
        assertEquals("intel", CapacityRecords.unitKind("gpu.intel.com/i915"));
        assertEquals("mig-1g.10gb", CapacityRecords.unitKind("nvidia.com/mig-1g.10gb"));
        assertEquals("nvidia", CapacityRecords.unitKind("nvidia"));
    }
}

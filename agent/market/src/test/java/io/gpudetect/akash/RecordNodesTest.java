package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.KubeNode;
import io.gpudetect.match.RecordSet;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordNodes} keeps of each record only what the operator's rules read ({@link RecordNodes#slim}) and makes a
 * node's GPUs only for its forecast: the forecast must be the one made from every GPU's whole entry, and a wrong PCI
 * address still the first in the records' order, reported after every record is read.
 */
class RecordNodesTest {

    /** The name {@link #RECORDS} is read under, and the source every forecast and error names. */
    private static final String SOURCE = "records.yaml";

    private static final String TABLE = """
            {"10de": {"name": "nvidia", "devices": {
               "2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"},
               "2684": {"name": "rtx4090", "interface": "PCIe", "memory_size": "24Gi"},
               "20b5": {"name": "a100", "interface": "SXM4", "memory_size": "40Gi"},
               "1234": {"name": "t4", "interface": "PCIe", "memory_size": "16Gi"}}},
             "1002": {"name": "amd", "devices": {"74a1": {"name": "mi300x", "interface": "OAM", "memory_size": "192Gi"}}},
             "8086": {"name": "intel", "devices": {"56c0": {"name": "flex170", "interface": "PCIe", "memory_size": "16Gi"}}}}
            """;

    /**
     * Every rule's input in one file: bid, a model and a memory size the table names otherwise, an id the table lacks
     * (its vendor listed or not, another board maker, a subsystem id the table has), no PCI ids, an integrated GPU,
     * DRM cards listed, missing and not known, a failed GPU the allocatable still counts, a DRA hand-out, a fabric,
     * fewer units than cards, a Node not Ready or cordoned, a Node without a record, a record without a Node, and a
     * record replaced by a later one for its node. Each GPU carries the fields the rules do not read too.
     */
    private static final String RECORDS = """
            apiVersion: v1
            kind: List
            items:
            - kind: GpuCapacity
              metadata: {name: h100-node}
              spec:
                sysClassDrm: true
                allocatable: {nvidia.com/gpu: 3}
                fabric: {kinds: [infiniband], devices: [{name: mlx5_0, pciAddress: "0000:0c:00.0", ports: [{port: 1, kind: infiniband, state: active}]}]}
                gpus:
                - {vendor: nvidia, model: h100, name: NVIDIA H100 80GB HBM3, memoryGi: 80, memoryMiB: 81559, interface: sxm,
                   pciAddress: "0000:1b:00.0", uuid: GPU-1, pciVendorId: 10de, pciDeviceId: "2330", pciSubsystemVendorId: 10de,
                   pciSubsystemDeviceId: "16c1", architecture: Hopper, computeCapability: "9.0", driverVersion: 580.159.04,
                   runtimeVersion: "13.0", vbiosVersion: 96.00.74.00.0d, memoryKind: dedicated, pcieRoot: pci0000:00,
                   numaNode: 0, powerLimitWatts: 700, health: ok, drmCards: [card1]}
                - {vendor: nvidia, model: h100, memoryGi: 94, interface: sxm, pciAddress: "0000:43:00.0", uuid: GPU-2,
                   pciVendorId: 10de, pciDeviceId: "2330", health: failed, healthReasons: [XidCritical, SomethingNew],
                   drmCards: [card2, card3]}
                - {vendor: nvidia, model: h200, memoryGi: 80, interface: sxm, pciAddress: "0000:52:00.0", pciVendorId: 10de,
                   pciDeviceId: "2330", drmCards: []}
                - {vendor: nvidia, model: h100, memoryGi: 80, interface: sxm, pciAddress: "0000:61:00.0", pciVendorId: 10de,
                   pciDeviceId: "2330", drmCards: [card4]}
            - kind: GpuCapacity
              metadata: {name: odd-node}
              spec:
                sysClassDrm: true
                allocatable: {nvidia.com/gpu: 8, amd.com/gpu: 1}
                gpus:
                - {vendor: nvidia, model: l40s, memoryGi: 48, interface: pcie, pciAddress: "0000:01:00.0", pciVendorId: 10de,
                   pciDeviceId: "26b9", pciSubsystemVendorId: "1458", pciSubsystemDeviceId: "2684", drmCards: [card0]}
                - {vendor: nvidia, model: l4, interface: pcie, pciAddress: "0000:02:00.0", pciVendorId: 10de,
                   pciDeviceId: "27b8", drmCards: [card1]}
                - {vendor: amd, model: mi300x, memoryGi: 192, interface: oam, pciAddress: "0000:03:00.0", pciVendorId: "1002",
                   pciDeviceId: "74a1", drmCards: [card2]}
                - {vendor: other, model: x1, memoryGi: 8, interface: pcie, pciAddress: "0000:04:00.0", pciVendorId: "1ed5",
                   pciDeviceId: "0001", drmCards: [card3]}
                - {vendor: intel, model: flex170, memoryGi: 16, interface: pcie, pciAddress: "0000:05:00.0", pciVendorId: "8086",
                   pciDeviceId: "56c0", drmCards: [card4]}
                - {vendor: intel, name: Intel UHD Graphics 770, interface: integrated, pciAddress: "0000:00:02.0",
                   pciVendorId: "8086", pciDeviceId: "4680", drmCards: [card5]}
                - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:06:00.0"}
                - {vendor: nvidia, model: t4, interface: pcie, uuid: GPU-t4}
            - kind: GpuCapacity
              metadata: {name: dra-node}
              spec:
                allocatable: {nvidia.com/gpu: 1}
                gpus:
                - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:1b:00.0", pciVendorId: 10de, pciDeviceId: "2684"}
                - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:43:00.0", uuid: GPU-b, pciVendorId: 10de, pciDeviceId: "2684"}
                - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, uuid: GPU-c, pciVendorId: 10de, pciDeviceId: "2684"}
                handout:
                  mode: both
                  gpus:
                  - {pciAddress: "0000:1b:00.0", by: dra, dra: [{driver: gpu.nvidia.com, pool: p, device: gpu-0}]}
                  - {uuid: GPU-b, by: both, devicePlugin: nvidia.com/gpu, dra: [{driver: gpu.nvidia.com, pool: p, device: gpu-1}]}
            - kind: GpuCapacity
              metadata: {name: cordoned-node}
              spec:
                gpus:
                - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", pciVendorId: 10de, pciDeviceId: "20b5"}
            - kind: GpuCapacity
              metadata: {name: excluded-node}
              spec:
                allocatable: {}
                gpus:
                - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", pciVendorId: 10de, pciDeviceId: "20b5"}
            - kind: GpuCapacity
              metadata: {name: down-node}
              spec:
                allocatable: {nvidia.com/gpu: 1}
                gpus:
                - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", pciVendorId: 10de, pciDeviceId: "20b5"}
            - kind: GpuCapacity
              metadata: {name: no-node-object}
              spec:
                allocatable: {nvidia.com/gpu: 1}
                gpus:
                - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", pciVendorId: 10de, pciDeviceId: "20b5"}
            - kind: GpuCapacity
              metadata: {name: cordoned-node}
              spec:
                allocatable: {nvidia.com/gpu: 1}
                sysClassDrm: false
                gpus:
                - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:18:00.0", pciVendorId: 10de, pciDeviceId: "20b5", drmCards: []}
            - kind: Node
              metadata: {name: h100-node}
              status: {conditions: [{type: Ready, status: "True"}]}
            - kind: Node
              metadata: {name: odd-node}
              status: {conditions: [{type: Ready, status: "True"}]}
            - kind: Node
              metadata: {name: down-node}
              status: {conditions: [{type: Ready, status: "False", reason: KubeletNotReady}]}
            - kind: Node
              metadata: {name: dra-node}
            - kind: Node
              metadata: {name: cordoned-node}
              spec: {unschedulable: true}
              status: {conditions: [{type: Ready, status: "True"}]}
            - kind: Node
              metadata: {name: excluded-node}
              status: {conditions: [{type: Ready, status: "True"}]}
            - kind: Node
              metadata: {name: bare-node}
              status: {conditions: [{type: Ready, status: "True"}]}
            - kind: Node
              metadata: {name: bare-node}
              status: {conditions: [{type: Ready, status: "False"}]}
            """;

    private static CapacityRecordOffers.RecordStore store(RecordSet set) {
        return new CapacityRecordOffers.RecordStore() {
            @Override
            public RecordSet records() {
                return set;
            }

            @Override
            public String describe() {
                return SOURCE;
            }
        };
    }

    /** {@link #RECORDS} as the lenient reader reads a file named {@link #SOURCE}. */
    private static RecordSet records() throws InvalidInputException {
        return RecordSet.read(() -> new StringReader(RECORDS), SOURCE, RecordSet.DEFAULT_YAML_LIMIT);
    }

    private static AkashGpuTable table() throws InvalidInputException {
        return AkashGpuTable.parse(TABLE, "gpus.json");
    }

    @Test
    void theForecastIsTheOneMadeFromEveryGpusWholeEntry() throws InvalidInputException {
        RecordSet set = records();
        AkashGpuTable table = table();
        InventoryOperatorConfig config = InventoryOperatorConfig.parse("exclude:\n  nodes: [excluded-.*]\n", "config.yaml");
        for (InventoryOperatorConfig c : java.util.Arrays.asList(config, null)) {
            AkashForecast expected = AkashForecast.of(SOURCE, table, wholeEntries(set, SOURCE), c,
                    "run it on the node");
            AkashForecast forecast = RecordNodes.forecast(store(set), table, c, "run it on the node");
            assertEquals(expected, forecast);
            // The file exercises what it claims to: each verdict, problems, warnings, exclusions, a bare Node.
            List<CardVerdict.Verdict> verdicts = forecast.nodes().stream().flatMap(n -> n.cards().stream())
                    .map(CardVerdict::verdict).distinct().sorted().toList();
            assertEquals(List.of(CardVerdict.Verdict.values()), verdicts);
            assertEquals(List.of("bare-node", "cordoned-node", "down-node", "dra-node", "excluded-node", "h100-node", "no-node-object",
                    "odd-node"), forecast.nodes().stream().map(NodeForecast::node).toList());
            assertTrue(forecast.nodes().stream().anyMatch(n -> !n.warnings().isEmpty()), forecast.toString());
            assertTrue(forecast.nodes().stream().anyMatch(n -> n.interconnect() != null && !n.interconnect().isEmpty()));
            assertEquals(c == null ? List.of("cordoned-node", "down-node") : List.of("cordoned-node", "down-node",
                    "excluded-node"), forecast.nodes().stream().filter(n -> n.excluded() != null).map(NodeForecast::node)
                    .toList());
        }
    }

    /** The whole entry leaves nothing the rules read behind; an entry cut to one field fewer would be seen here. */
    @Test
    void theSlimEntryKeepsEveryFieldTheRulesRead() throws InvalidInputException {
        RecordSet set = records();
        RecordNodes.Texts texts = new RecordNodes.Texts();
        for (RecordSet.Located located : set.records()) {
            for (GpuCapacitySpec.GpuEntry entry : located.record().getSpec().gpus()) {
                GpuCapacitySpec.GpuEntry slim = RecordNodes.slim(entry, texts);
                Gpu whole = entry.toGpu("record");
                Gpu cut = slim.toGpu("record");
                assertEquals(whole.vendor(), cut.vendor());
                assertEquals(whole.name(), cut.name());
                assertEquals(whole.model(), cut.model());
                assertEquals(whole.memoryGi(), cut.memoryGi());
                assertEquals(whole.interfaceType(), cut.interfaceType());
                assertEquals(whole.pciAddress(), cut.pciAddress());
                assertEquals(whole.pciVendorId(), cut.pciVendorId());
                assertEquals(whole.pciDeviceId(), cut.pciDeviceId());
                assertEquals(whole.pciSubsystemVendorId(), cut.pciSubsystemVendorId());
                assertEquals(whole.pciSubsystemDeviceId(), cut.pciSubsystemDeviceId());
                assertEquals(whole.uuid(), cut.uuid());
                assertEquals(whole.health(), cut.health());
                assertEquals(whole.sources().get("model"), cut.sources().get("model"));
                assertEquals(entry.drmCards(), slim.drmCards());
            }
        }
    }

    /** As a cluster gives them: typed records whose address no reader checked; the first wrong one is reported. */
    @Test
    void aWrongAddressIsTheFirstInTheRecordsOrderAfterEveryRecordIsRead() throws IOException {
        GpuCapacity good = record("n0", "0000:17:00.0", "0000:18:00.0");
        GpuCapacity first = record("n2", "0000:17:00.0", "17:00");
        GpuCapacity second = record("n1", "gpu0", "0000:18:00.0");
        GpuCapacity replacement = record("n2", "0000:17:00.0", "0000:18:00.0");
        RecordSet set = new RecordSet(List.of(new RecordSet.Located(good, "[n0]", null),
                new RecordSet.Located(first, "[n2]", null), new RecordSet.Located(second, "[n1]", null),
                new RecordSet.Located(replacement, "[n2]", null)), List.of());
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> RecordNodes.forecast(store(set), table(), null, null));
        assertEquals("[n2](n2).gpus[1].pciAddress", e.path(), "the first in the records' order, though replaced later");
        assertEquals("expected a PCI address such as 0000:17:00.0, found 17:00", e.problem());
        assertEquals(SOURCE, e.file());
    }

    private static GpuCapacity record(String node, String... addresses) throws IOException {
        StringBuilder gpus = new StringBuilder();
        for (String a : addresses) {
            gpus.append(gpus.isEmpty() ? "" : ",").append("{\"vendor\":\"nvidia\",\"model\":\"h100\",\"pciAddress\":\"")
                    .append(a).append("\",\"pciVendorId\":\"10de\",\"pciDeviceId\":\"2330\"}");
        }
        return new ObjectMapper().readValue("{\"apiVersion\":\"gpu-detect.io/v1alpha1\",\"kind\":\"GpuCapacity\","
                + "\"metadata\":{\"name\":\"" + node + "\"},\"spec\":{\"gpus\":[" + gpus + "]}}", GpuCapacity.class);
    }

    /** Each node as before the records were cut: every GPU made from its whole entry, all held at once. */
    private static List<NodeInput> wholeEntries(RecordSet set, String source) {
        Map<String, NodeInput> nodes = new TreeMap<>();
        for (RecordSet.Located located : set.records()) {
            GpuCapacitySpec spec = located.record().getSpec();
            List<Gpu> gpus = new ArrayList<>();
            for (GpuCapacitySpec.GpuEntry entry : spec.gpus()) {
                gpus.add(entry.toGpu("record"));
            }
            String node = located.node();
            nodes.put(node, new NodeInput(node, gpus, RecordNodes.drm(spec, gpus), spec.allocatable(),
                    "the record has no allocatable field", set.listsNode(node) ? set.node(node) : null,
                    set.listsNode(node) ? "its Node object has no status" : "no Node object named " + node
                            + " was read beside the records (kubectl get gpucapacities,nodes -o yaml lists both)",
                    source, spec.handout(), spec.fabric()));
        }
        for (KubeNode n : set.nodes()) {
            nodes.putIfAbsent(n.name(), new NodeInput(n.name(), List.of(),
                    new DrmCards.NotKnown("the node has no GpuCapacity record"), null,
                    "the node has no GpuCapacity record", n, "its Node object has no status", source, null));
        }
        return List.copyOf(nodes.values());
    }
}

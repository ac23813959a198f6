package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A request for an RDMA fabric, from {@code --gpu} ({@code fabric=infiniband}, {@code fabric>=400G}) or from an
 * SDL placement's interconnect capabilities, against the fabric each node's record holds.
 */
class FabricMatchTest {

    /** Four nodes of one H100 each: InfiniBand NDR, RoCE 200, an RDMA NIC whose port is down, and an older record. */
    private static final String RECORDS = """
            - metadata: {name: ib}
              spec:
                gpus: [{vendor: nvidia, model: h100, memoryGi: 80, pciAddress: "0000:18:00.0"}]
                fabric:
                  devices:
                  - name: mlx5_0
                    pciAddress: "0000:19:00.0"
                    ports: [{port: 1, kind: infiniband, state: active, rateGbps: 400, rate: 4X NDR}]
            - metadata: {name: roce}
              spec:
                gpus: [{vendor: nvidia, model: h100, memoryGi: 80, pciAddress: "0000:18:00.0"}]
                fabric:
                  devices:
                  - {name: mlx5_0, pciAddress: "0000:19:00.0", ports: [{kind: roce, state: active, rateGbps: 200}]}
                  - {name: rxe0, ports: [{kind: roce, state: active, rateGbps: 800}]}
            - metadata: {name: down}
              spec:
                gpus: [{vendor: nvidia, model: h100, memoryGi: 80, pciAddress: "0000:18:00.0"}]
                fabric:
                  devices:
                  - {name: mlx5_0, pciAddress: "0000:19:00.0", ports: [{kind: infiniband, state: down, rateGbps: 400}]}
            - metadata: {name: old}
              spec:
                gpus: [{vendor: nvidia, model: h100, memoryGi: 80, pciAddress: "0000:18:00.0"}]
            """;

    private static List<NodeOffer> offers() throws InvalidInputException {
        return new CapacityRecordOffers(new CapacityRecordOffers.RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                return RecordSet.read(() -> new java.io.StringReader(RECORDS), "records.yaml", RecordSet.DEFAULT_YAML_LIMIT);
            }

            @Override
            public String describe() {
                return "records.yaml";
            }
        }).offers();
    }

    /** Each node's verdict for the one placement: "yes" or its reason. */
    private static Map<String, String> verdicts(Placement p) throws InvalidInputException {
        MatchResult r = Matcher.match(new Demand("test", List.of(p), List.of()), "records.yaml", offers());
        Map<String, String> out = new LinkedHashMap<>();
        for (NodeVerdict v : r.placements().get(0).nodes()) {
            out.put(v.node(), v.canServe() ? "yes" : v.reason());
        }
        return out;
    }

    @Test
    void fabricKindAndRateFromTheCommandLine() throws InvalidInputException {
        Map<String, String> ib = verdicts(CapabilityRequest.parse("vendor=nvidia,fabric=infiniband", 0));
        assertEquals("yes", ib.get("ib"));
        assertEquals("fabric=infiniband: no active infiniband port (the node's fabric: roce active, 2 devices)", ib.get("roce"));
        assertEquals("fabric=infiniband: no active infiniband port (the node's fabric: no active port, 1 device)", ib.get("down"));
        assertTrue(ib.get("old").startsWith("fabric=infiniband: the node's record says nothing of its RDMA fabric"), ib.get("old"));

        Map<String, String> fast = verdicts(CapabilityRequest.parse("vendor=nvidia,fabric>=400G", 0));
        assertEquals("yes", fast.get("ib"));
        assertEquals("fabric>=400G: the fastest active RDMA port runs at 200 Gb/s, below 400 Gb/s", fast.get("roce"),
                "software RoCE (rxe0, no PCI function) is no fabric");

        Map<String, String> roce = verdicts(CapabilityRequest.parse("vendor=nvidia,fabric=roce,fabric>=100g", 0));
        assertEquals("yes", roce.get("roce"));
        assertEquals("1 x nvidia * on roce >= 100 Gb/s", CapabilityRequest.parse("vendor=nvidia,fabric=roce,fabric>=100g", 0)
                .gpu().describe());
        assertEquals("yes", verdicts(CapabilityRequest.parse("vendor=nvidia,fabric=any", 0)).get("roce"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "vendor=nvidia,fabric=myrinet              | fabric 'myrinet' is not infiniband, roce, iwarp or any",
        "vendor=nvidia,fabric>=fast                | fabric>=fast is not a rate",
        "vendor=nvidia,fabric>=0G                  | fabric>=0g is not a rate",
        "vendor=nvidia,fabric=roce,fabric=infiniband | fabric= given twice",
    })
    void rejectsWithAReason(String text, String words) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> CapabilityRequest.parse(text, 0));
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    private static Placement sdl(String attributes) throws InvalidInputException {
        return SdlReader.read("""
                version: "2.0"
                services:
                  trainer:
                    image: trainer
                profiles:
                  compute:
                    trainer:
                      resources:
                        cpu: {units: 1}
                        gpu:
                          units: 1
                          attributes:
                            vendor:
                              nvidia:
                                - model: h100
                  placement:
                    dc:
                      attributes:
                """ + attributes.indent(10) + """
                      pricing:
                        trainer: {denom: uakt, amount: 100}
                deployment:
                  trainer:
                    dc: {profile: trainer, count: 1}
                """, "deploy.yaml").placements().get(0);
    }

    @Test
    void anSdlPlacementsInterconnectCapabilitiesAreMatchedAgainstTheRecord() throws InvalidInputException {
        Map<String, String> any = verdicts(sdl("capabilities/gpu-interconnect: \"true\""));
        assertEquals("yes", any.get("ib"));
        assertEquals("yes", any.get("roce"));
        assertEquals("capabilities/gpu-interconnect: no active RDMA port (the node's fabric: no active port, 1 device)",
                any.get("down"));

        Map<String, String> pinned = verdicts(sdl("capabilities/gpu-interconnect: \"true\"\n"
                + "capabilities/gpu-interconnect/fabric/roce: \"true\""));
        assertEquals("capabilities/gpu-interconnect/fabric/roce: no active roce port (the node's fabric: infiniband active,"
                + " 1 device)", pinned.get("ib"));
        assertEquals("yes", pinned.get("roce"));

        assertNull(sdl("region: us-west").gpu().fabric(), "other placement attributes ask nothing of the fabric");
        assertNull(sdl("capabilities/gpu-interconnect: \"false\"").gpu().fabric());
    }
}

package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.record.FabricSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The interconnect capabilities a provider could declare for a node, from the fabric its record holds. */
class InterconnectCapabilitiesTest {

    @Test
    void eachActiveInfinibandOrRoceFabricIsAPinBesideTheCapability() {
        assertEquals(List.of("capabilities/gpu-interconnect=true", "capabilities/gpu-interconnect/fabric/infiniband=true",
                "capabilities/gpu-interconnect/fabric/roce=true"),
                InterconnectCapabilities.of(new FabricSpec(List.of("infiniband", "roce"), 400.0, null, List.of())));
    }

    @Test
    void iwarpAloneOrNoActivePortDeclaresNothingAndAnUnknownFabricIsNotKnown() {
        assertEquals(List.of(), InterconnectCapabilities.of(new FabricSpec(List.of("iwarp"), 100.0, null, List.of())),
                "Akash's SDL pins infiniband or roce only");
        assertEquals(List.of(), InterconnectCapabilities.of(new FabricSpec(List.of(), null, null, List.of())));
        assertNull(InterconnectCapabilities.of(null));
    }

    @Test
    void theReportSaysItPerNode() {
        NodeForecast n = new NodeForecast("gpu-1", new java.util.TreeMap<>(), List.of(), List.of(), List.of(), null,
                List.of("capabilities/gpu-interconnect=true", "capabilities/gpu-interconnect/fabric/infiniband=true"));
        String table = AkashReport.table(new AkashForecast("test", "test", AkashForecast.Verdict.EVERY_CARD_BID_ON, null,
                List.of(n)));
        assertEquals(true, table.contains("  GPU interconnect capabilities the provider could declare: "
                + "capabilities/gpu-interconnect=true, capabilities/gpu-interconnect/fabric/infiniband=true\n"), table);
    }
}

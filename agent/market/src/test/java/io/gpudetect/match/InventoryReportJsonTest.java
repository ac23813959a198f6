package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpudetect.cli.Durations;
import io.gpudetect.model.Vendor;
import io.gpudetect.render.InventoryDocument;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link InventoryReport#json} writes its rows as they are serialized (issue 37: making them into a tree first was a
 * twentieth of a 5,000-node inventory at most); its text is, byte for byte, what writing the tree gave.
 */
class InventoryReportJsonTest {

    private static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");

    @Test
    void isTheTextTheTreeGave() throws Exception {
        OfferedGpu mig = new OfferedGpu(Vendor.NVIDIA, "a100", 40, "sxm4", true, List.of("3g.20gb", "3g.20gb"), null);
        NodeOffer fresh = NodeOffer.of("fresh", List.of(gpu("h100", 80), gpu("h100", 80), mig),
                Map.of("nvidia", 2, "mig-3g.20gb", 2), Map.of("nvidia", 1), NOW.minusSeconds(60))
                .handedOut("dra: 2 of 2 GPUs", List.of("a warning"));
        NodeOffer stale = NodeOffer.of("stale", List.of(gpu("rtx4090", 24)), Map.of(), Map.of(),
                NOW.minus(Duration.ofMinutes(11)));
        NodeOffer never = NodeOffer.of("never", List.of(gpu("a100", 80)), Map.of(), Map.of(), null);
        NodeOffer cordoned = NodeOffer.of("cordoned", List.of(gpu("h100", 80)), Map.of("nvidia", 1), Map.of(),
                NOW.minusSeconds(30)).unavailable("node cordoned (spec.unschedulable)");
        ClusterInventory inventory = ClusterInventory.of("records.yaml",
                List.of(fresh, stale, never, cordoned, NodeOffer.missing("gone")), NOW, Duration.ofMinutes(10));
        assertEquals(throughTree(inventory), InventoryReport.json(inventory));

        ClusterInventory empty = ClusterInventory.of("empty.json", List.of(), NOW, Duration.ofMinutes(90));
        assertEquals(throughTree(empty), InventoryReport.json(empty));
    }

    private static OfferedGpu gpu(String model, int gi) {
        return new OfferedGpu(Vendor.NVIDIA, model, gi, "sxm", false, null,
                new OfferedGpu.Platform("0000:17:00.0", "580.159.04", "13.0", null, null));
    }

    /** The report as it was written before: each part made into a tree, then the document written. */
    private static String throughTree(ClusterInventory inventory) throws Exception {
        ObjectMapper mapper = InventoryDocument.jsonMapper();
        ObjectNode doc = mapper.createObjectNode();
        doc.put("records", inventory.records());
        doc.put("now", inventory.now().toString());
        doc.put("staleAfter", Durations.format(inventory.staleAfter()));
        doc.set("models", mapper.valueToTree(inventory.models()));
        doc.set("units", mapper.valueToTree(inventory.vendors()));
        doc.set("nodes", mapper.valueToTree(inventory.nodes()));
        doc.put("flaggedNodes", inventory.flaggedNodes());
        return mapper.writeValueAsString(doc) + "\n";
    }
}

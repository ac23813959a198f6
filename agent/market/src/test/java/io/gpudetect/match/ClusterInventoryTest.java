package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Vendor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterInventoryTest {

    private static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");

    private static OfferedGpu gpu(String model, int gi) {
        return new OfferedGpu(Vendor.NVIDIA, model, gi, "pcie", false, null, null);
    }

    @Test
    void sumsPerModelAndFlagsStaleAndMissingNodes() {
        NodeOffer fresh = NodeOffer.of("fresh", List.of(gpu("rtx4090", 24), gpu("rtx4090", 24)),
                Map.of("nvidia", 2), Map.of("nvidia", 1), NOW.minusSeconds(60));
        NodeOffer stale = NodeOffer.of("stale", List.of(gpu("rtx4090", 24)), Map.of(), Map.of(),
                NOW.minus(Duration.ofMinutes(11)));
        NodeOffer never = NodeOffer.of("never", List.of(gpu("a100", 80)), Map.of(), Map.of(), null);
        ClusterInventory inv = ClusterInventory.of("r", List.of(fresh, stale, never, NodeOffer.missing("gone")), NOW,
                Duration.ofMinutes(10));
        assertEquals(List.of(
                new ClusterInventory.ModelRow("nvidia", "a100", 80, "pcie", null, 1, 1, 1, 0, 1),
                new ClusterInventory.ModelRow("nvidia", "rtx4090", 24, "pcie", null, 2, 3, 3, 1, 2)), inv.models());
        assertEquals(List.of(new ClusterInventory.VendorRow("nvidia", 3, 4, 4, 1, 3)), inv.vendors());
        assertEquals(List.of("ok", "stale", "no-good-pass", "missing"),
                inv.nodes().stream().map(ClusterInventory.NodeRow::state).toList());
        assertEquals(3, inv.flaggedNodes());
        assertEquals("last good pass 11m ago, more than 10m", inv.nodes().get(1).detail());
    }

    @Test
    void aNodeThatTakesNoNewWorkHasNoFreeUnitsAndSaysWhyWithoutBeingFlagged() {
        NodeOffer ready = NodeOffer.of("ready", List.of(gpu("rtx4090", 24), gpu("rtx4090", 24)),
                Map.of("nvidia", 2), Map.of("nvidia", 1), NOW.minusSeconds(60));
        NodeOffer cordoned = NodeOffer.of("cordoned", List.of(gpu("rtx4090", 24), gpu("rtx4090", 24)),
                Map.of("nvidia", 2), Map.of(), NOW.minusSeconds(60)).unavailable("node cordoned (spec.unschedulable)");
        ClusterInventory inv = ClusterInventory.of("r", List.of(ready, cordoned), NOW, Duration.ofMinutes(10));

        assertEquals(List.of(new ClusterInventory.ModelRow("nvidia", "rtx4090", 24, "pcie", null, 2, 4, 4, 1, 1)),
                inv.models(), "the cordoned node's two idle units are not free");
        assertEquals(List.of(new ClusterInventory.VendorRow("nvidia", 2, 4, 4, 1, 1)), inv.vendors());
        assertEquals(List.of("ok", "unavailable"), inv.nodes().stream().map(ClusterInventory.NodeRow::state).toList());
        assertEquals("node cordoned (spec.unschedulable)", inv.nodes().get(1).detail());
        assertEquals(0, inv.flaggedNodes(), "a cordoned node's record is current: the cluster chose, nothing is wrong");
    }

    @Test
    void agesInWords() {
        assertEquals("45s", ClusterInventory.words(Duration.ofSeconds(45)));
        assertEquals("2h 20m", ClusterInventory.words(Duration.ofMinutes(140)));
        assertEquals("3d 1h", ClusterInventory.words(Duration.ofHours(73).plusMinutes(5)));
        assertEquals("0s", ClusterInventory.words(Duration.ZERO));
    }
}

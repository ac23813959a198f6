package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Health;
import io.gpudetect.model.Vendor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Free units count only GPUs that are neither failed nor lost: {@code min(allocatable, healthy units) - in use}. */
class HealthyFreeTest {

    private static final Instant PASS = Instant.parse("2026-05-01T10:00:00Z");

    private static OfferedGpu h100(String address, Health.Status health) {
        return new OfferedGpu(Vendor.NVIDIA, "h100", 80, "sxm", false, null,
                new OfferedGpu.Platform(address, null, null, null, null), health);
    }

    private static OfferedGpu migA100(String address, Health.Status health) {
        return new OfferedGpu(Vendor.NVIDIA, "a100", 40, "sxm", true, List.of("3g.20gb", "3g.20gb"),
                new OfferedGpu.Platform(address, null, null, null, null), health);
    }

    @Test
    void aFailedGpuTheDevicePluginStillCountsIsCappedAndOneItRemovedIsNotTakenOffTwice() {
        List<OfferedGpu> gpus = List.of(h100("0000:17:00.0", Health.Status.OK), h100("0000:18:00.0", Health.Status.FAILED),
                h100("0000:19:00.0", Health.Status.OK), h100("0000:1a:00.0", Health.Status.DEGRADED));
        NodeOffer kept = NodeOffer.of("kept", gpus, Map.of("nvidia", 4), Map.of("nvidia", 1), PASS);
        assertEquals(2, kept.free("nvidia"), "min(4, 3 healthy) - 1: a degraded GPU still counts");
        NodeOffer removed = NodeOffer.of("removed", gpus, Map.of("nvidia", 3), Map.of("nvidia", 1), PASS);
        assertEquals(2, removed.free("nvidia"), "min(3, 3) - 1, not 3 - 1 - 1");
        NodeOffer handWritten = NodeOffer.of("hand", gpus, Map.of(), Map.of(), PASS);
        assertEquals(3, handWritten.free("nvidia"), "no allocatable: every healthy card");
    }

    @Test
    void withoutAnUnhealthyGpuTheAllocatableStandsEvenAboveTheCards() {
        // Time-sliced GPUs: 2 cards advertised as 8 units.
        NodeOffer shared = NodeOffer.of("shared", List.of(h100("0000:17:00.0", Health.Status.OK),
                h100("0000:18:00.0", null)), Map.of("nvidia", 8), Map.of("nvidia", 3), PASS);
        assertEquals(5, shared.free("nvidia"));
        assertNull(NodeOffer.notCounted(shared.gpus()));
    }

    @Test
    void theSlicesOfALostGpuAreNotFree() {
        NodeOffer mig = NodeOffer.of("mig", List.of(migA100("0000:17:00.0", Health.Status.LOST),
                migA100("0000:18:00.0", Health.Status.OK)), Map.of("mig-3g.20gb", 4), Map.of("mig-3g.20gb", 1), PASS);
        assertEquals(1, mig.free("mig-3g.20gb"), "min(4, 2) - 1");
        assertEquals("1 GPU lost, not counted as free: 0000:17:00.0 (a100 40Gi sxm) lost",
                NodeOffer.notCounted(mig.gpus()));
    }

    @Test
    void matchSkipsAFailedGpuAndSaysSo() throws InvalidInputException {
        NodeOffer node = NodeOffer.of("n", List.of(h100("0000:17:00.0", Health.Status.FAILED)), Map.of("nvidia", 1),
                Map.of(), PASS);
        Demand demand = new Demand("--gpu", List.of(CapabilityRequest.parse("vendor=nvidia,model=h100", 0)));
        NodeVerdict v = Matcher.match(demand, "test", List.of(node)).placements().get(0).nodes().get(0);
        assertEquals(false, v.canServe());
        assertEquals("no healthy matching GPU", v.reason());
        assertEquals("1 GPU failed, not counted as free: 0000:17:00.0 (h100 80Gi sxm) failed", v.notCounted());
    }

    @Test
    void theReasonCodesOfARecordNameWhyAGpuIsNotCounted() {
        // A record as the API server hands it: health and healthReasons per GPU, read into the offer's GPUs.
        io.gpudetect.model.Gpu failed = io.gpudetect.model.Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100")
                .memoryGi(80).interfaceType(io.gpudetect.model.GpuInterface.SXM)
                .pciAddress(io.gpudetect.model.PciAddress.parse("0000:18:00.0").orElseThrow())
                .health(Health.of(List.of(io.gpudetect.model.HealthReason.XID_CRITICAL,
                        io.gpudetect.model.HealthReason.UNCORRECTABLE_ECC), null, List.of())).build();
        io.gpudetect.record.GpuCapacitySpec.GpuEntry entry = io.gpudetect.record.GpuCapacitySpec.GpuEntry.of(failed, null);
        assertEquals(List.of("XidCritical", "UncorrectableEcc"), entry.healthReasons());
        OfferedGpu offered = OfferedGpu.of(entry.toGpu("record"), false, List.of());
        assertEquals(List.of("XidCritical", "UncorrectableEcc"), offered.healthReasons());
        assertEquals("1 GPU failed, not counted as free: 0000:18:00.0 (h100 80Gi sxm) failed (XidCritical, "
                + "UncorrectableEcc)", NodeOffer.notCounted(List.of(offered, h100("0000:19:00.0", Health.Status.OK))));
    }
}

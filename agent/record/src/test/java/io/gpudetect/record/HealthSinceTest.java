package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.pci.DrmCards;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each GPU's health in the record with its reasons and since when (issue 38). */
class HealthSinceTest {

    private static final Instant FIRST = Instant.parse("2026-11-29T01:00:00Z");
    private static final Instant LATER = Instant.parse("2026-11-29T01:05:00Z");

    private static GpuCapacitySpec spec(Health first, Health second) {
        List<Gpu> gpus = List.of(
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:18:00.0"))
                        .uuid("GPU-a").health(first).build(),
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:98:00.0"))
                        .uuid("GPU-b").health(second).build(),
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:b8:00.0"))
                        .build());
        return CapacityRecords.spec(new Inventory("test", gpus, List.of(), List.of(), null, List.of(), null, null),
                Map.of(), Map.of(), null, new DrmCards.NotKnown("not here"), "test");
    }

    private static Health failed(HealthReason... reasons) {
        return Health.of(List.of(reasons), null, List.of("Xid 79"));
    }

    @Test
    void aFirstRecordStampsEveryGpuWhoseHealthIsKnownAndWritesItsReasons() {
        GpuCapacitySpec first = CapacityRecords.withHealthSince(spec(Health.ok(), failed(HealthReason.XID_CRITICAL)),
                null, FIRST);
        assertEquals(FIRST.toString(), first.gpus().get(0).healthSince());
        assertNull(first.gpus().get(0).healthReasons(), "an ok GPU has no reasons");
        assertEquals(Health.Status.FAILED, first.gpus().get(1).health());
        assertEquals(List.of("XidCritical"), first.gpus().get(1).healthReasons());
        assertEquals(FIRST.toString(), first.gpus().get(1).healthSince());
        assertNull(first.gpus().get(2).healthSince(), "no tool said the third GPU's health: no time either");
    }

    @Test
    void theTimeStaysWhileHealthAndReasonsStayAndMovesWhenEitherChanges() {
        GpuCapacitySpec held = CapacityRecords.withHealthSince(spec(Health.ok(), failed(HealthReason.XID_CRITICAL)),
                null, FIRST);

        GpuCapacitySpec same = CapacityRecords.withHealthSince(spec(Health.ok(), failed(HealthReason.XID_CRITICAL)),
                held, LATER);
        assertEquals(held, same, "nothing changed: the record is the same, so no write");

        GpuCapacitySpec worse = CapacityRecords.withHealthSince(
                spec(Health.ok(), failed(HealthReason.XID_CRITICAL, HealthReason.UNCORRECTABLE_ECC)), held, LATER);
        assertEquals(FIRST.toString(), worse.gpus().get(0).healthSince(), "the first GPU did not change");
        assertEquals(LATER.toString(), worse.gpus().get(1).healthSince(), "a reason more is a change");

        GpuCapacitySpec back = CapacityRecords.withHealthSince(spec(Health.ok(), Health.ok()), held, LATER);
        assertEquals(LATER.toString(), back.gpus().get(1).healthSince(), "failed -> ok restamps");
        assertNull(back.gpus().get(1).healthReasons());
    }
}

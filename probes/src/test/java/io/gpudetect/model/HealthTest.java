package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class HealthTest {

    /** The worst reason decides the state; no reason is ok; each reason is kept once, in order. */
    @Test
    void theWorstReasonDecidesTheState() {
        assertEquals(Health.Status.OK, Health.of(List.of(), null, List.of()).status());
        Health h = Health.of(List.of(HealthReason.PCIE_LINK_DEGRADED, HealthReason.UNCORRECTABLE_ECC,
                HealthReason.PCIE_LINK_DEGRADED), 2L, List.of("2 uncorrected ECC errors"));
        assertEquals(Health.Status.FAILED, h.status());
        assertEquals(List.of(HealthReason.PCIE_LINK_DEGRADED, HealthReason.UNCORRECTABLE_ECC), h.reasons());
        assertEquals(Health.Status.LOST,
                Health.of(List.of(HealthReason.XID_CRITICAL, HealthReason.GPU_LOST), null, List.of()).status());
        assertEquals(Health.Status.DEGRADED, Health.of(List.of(HealthReason.HARDWARE_SLOWDOWN), null, List.of()).status());
    }

    @Test
    void statesOrderFromBestToWorst() {
        assertEquals(Health.Status.FAILED, Health.Status.DEGRADED.worse(Health.Status.FAILED));
        assertEquals(Health.Status.LOST, Health.Status.LOST.worse(Health.Status.OK));
        assertEquals(Health.Status.OK, Health.Status.OK.worse(null));
        assertEquals("failed", Health.Status.FAILED.id());
    }

    @Test
    void codesReadBack() {
        for (HealthReason r : HealthReason.values()) {
            assertEquals(r, HealthReason.fromCode(r.code()));
        }
        assertNull(HealthReason.fromCode("gpuLost"));
        assertEquals("GpuLost", HealthReason.GPU_LOST.code());
    }

    /** The three-part constructor the text parsers use leaves the reasons empty, so their JSON is unchanged. */
    @Test
    void threePartHealthHasNoReasons() {
        assertEquals(List.of(), new Health(Health.Status.LOST, null, List.of("gone")).reasons());
        assertEquals(List.of(), new Health(null, null, null, null).reasons());
    }
}

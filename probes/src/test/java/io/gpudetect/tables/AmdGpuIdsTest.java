package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** amdgpu.ids as the jar carries it (from Debian's libdrm-common, fetched by the build) and a host's copy against it. */
class AmdGpuIdsTest {

    /** --version prints the shipped copy's origin read from its first line alone: the same as the whole table's. */
    @Test
    void theShippedOriginFromTheFirstLineIsTheWholeTablesOrigin() {
        assertEquals(AmdGpuIds.shipped().origin(), AmdGpuIds.shippedOrigin());
        assertTrue(AmdGpuIds.shippedOrigin().endsWith(" (shipped)") || AmdGpuIds.shippedOrigin().startsWith("none: "),
                AmdGpuIds.shippedOrigin());
    }

    private static final String HEADER = "# List of AMDGPU IDs\n#\n# Syntax:\n# device_id,\trevision_id,\tproduct_name\n\n1.0.0\n";

    @Test
    void theJarsCopySaysWhichDebianPackageItCameFrom() {
        AmdGpuIds shipped = AmdGpuIds.shipped();
        Assumptions.assumeFalse(shipped.origin().startsWith("none"), "skipped: this build has no amdgpu.ids (" + shipped.origin() + ")");
        assertTrue(shipped.origin().matches("Debian libdrm-common \\S+ \\(shipped\\)"), shipped.origin());
        assertEquals("AMD Radeon VII", shipped.name("66af", "c1").orElseThrow());
        assertEquals("AMD Instinct MI100", shipped.name("738c", "01").orElseThrow());
    }

    @Test
    void aHostCopyWithMoreEntriesWinsAndOneWithFewerLoses() {
        AmdGpuIds ours = AmdGpuIds.of(HEADER + "66AF,\tC1,\tAMD Radeon VII\n738C,\t01,\tAMD Instinct MI100\n", "ours");
        AmdGpuIds older = AmdGpuIds.of(HEADER + "66AF,\tC1,\tAMD Radeon VII\n", "/usr/share/libdrm/amdgpu.ids (host)");
        AmdGpuIds newer = AmdGpuIds.of(HEADER + "66AF,\tC1,\tAMD Radeon VII\n738C,\t01,\tAMD Instinct MI100\n"
                + "74A1,\t00,\tAMD Instinct MI300X\n", "/usr/share/libdrm/amdgpu.ids (host)");
        assertSame(ours, ours.newer(older));
        assertSame(newer, ours.newer(newer));
        assertSame(ours, ours.newer(null));
        assertEquals("AMD Instinct MI300X", ours.newer(newer).name("74a1", "00").orElseThrow());
    }
}

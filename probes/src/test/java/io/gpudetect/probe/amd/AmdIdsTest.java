package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class AmdIdsTest {

    @Test
    void theThreeSpellingsOfOneUniqueIdAgree() {
        String fromRocmSmi = AmdIds.uuidFromHex("0x79ccd55167a2124a");
        String fromRocminfo = AmdIds.uuidFromHex("GPU-79ccd55167a2124a");
        String fromKfd = AmdIds.uuidFromDecimal(Long.toUnsignedString(0x79ccd55167a2124aL));
        assertEquals("GPU-79ccd55167a2124a", fromRocmSmi);
        assertEquals(fromRocmSmi, fromRocminfo);
        assertEquals(fromRocmSmi, fromKfd);
        assertEquals("GPU-ffffffffffffffff", AmdIds.uuidFromDecimal("18446744073709551615"), "unsigned 64-bit");
    }

    @Test
    void placeholdersAreNoId() {
        assertNull(AmdIds.uuidFromHex("GPU-XX"));
        assertNull(AmdIds.uuidFromHex("N/A"));
        assertNull(AmdIds.uuidFromDecimal("0"));
        assertNull(AmdIds.uuidFromDecimal("18446744073709551616"), "over 64 bits");
    }

    @Test
    void gfxTargetVersionsBecomeTargetNames() {
        assertEquals("gfx942", AmdIds.gfxTarget(90402));
        assertEquals("gfx90a", AmdIds.gfxTarget(90010));
        assertEquals("gfx1030", AmdIds.gfxTarget(100300));
        assertEquals("gfx1100", AmdIds.gfxTarget(110000));
        assertNull(AmdIds.gfxTarget(0));
        assertNull(AmdIds.gfxTarget(90099), "a stepping over 15 is no target");
    }
}

package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.testing.SharedData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** AMD names and models: libdrm's amdgpu.ids over pci.ids code names, and marketing names over an ambiguous Akash key. */
class AmdNamingTest {

    /** A fresh one per test: the Normaliser keeps what it judged; skipped without the shared Akash table. */
    private final Normaliser normaliser = new Normaliser(SharedData.replayTables());

    private Gpu amd(String name, String deviceId, String revision, Long mib) {
        return normaliser.normalise(Gpu.builder("rocm-smi-json").vendor(Vendor.AMD).name(name)
                .pciDeviceId(deviceId).pciRevision(revision).memoryMiB(mib).build(), new ArrayList<>());
    }

    @Test
    void aCodeNameWithRevisionIsNamedByAmdgpuIds() {
        Gpu gpu = amd("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "73df", "c1", 12272L);
        assertEquals("AMD Radeon RX 6700 XT", gpu.name());
        assertEquals("amdgpu.ids", gpu.sources().get("name"));
        assertEquals("rx6700xt", gpu.model());
        assertEquals(12, gpu.memoryGi());
    }

    @Test
    void theRevisionTellsProductsOfOneDeviceIdApart() {
        assertEquals("AMD Radeon RX 6750 XT", amd("Navi 22", "73df", "c0", null).name());
    }

    @Test
    void withoutRevisionAnIdSoldAsOneProductIsStillNamed() {
        Gpu gpu = amd("Vega 20", "66af", null, 16368L);
        assertEquals("AMD Radeon VII", gpu.name());
        assertEquals("radeonvii", gpu.model());
    }

    private Gpu amd(String name, String deviceId, String revision, Long mib, List<Diagnostic> diagnostics) {
        return normaliser.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).name(name)
                .pciDeviceId(deviceId).pciRevision(revision).memoryMiB(mib).build(), diagnostics);
    }

    @Test
    void anIdSoldAsSeveralProductsThatVramCannotTellApartIsItsChipFamilyWithTheCandidatesSaid() {
        List<Diagnostic> diagnostics = new ArrayList<>();
        // 66a1 without a revision: MI60 (32 GB), MI50 (16 or 32 GB), Radeon Pro VII (16 GB); 32 GB leaves two.
        Gpu gpu = amd("Vega 20", "66a1", null, 32752L, diagnostics);
        assertEquals("Vega 20", gpu.name());
        assertEquals("vega20", gpu.model(), "never Akash's mi60 for an id it keys alone, never mi60mi50");
        assertEquals(32, gpu.memoryGi());
        assertEquals(1, diagnostics.size());
        String message = diagnostics.get(0).message();
        assertTrue(message.contains("AMD Instinct MI60, AMD Instinct MI50, AMD Radeon Pro VII"), message);
        assertTrue(message.contains("32 GB of VRAM leaves AMD Instinct MI60, AMD Instinct MI50"), message);
        assertEquals("rocminfo", diagnostics.get(0).probe());
    }

    @Test
    void vramTellsApartWhatTheRevisionLeavesOpen() {
        List<Diagnostic> diagnostics = new ArrayList<>();
        // Revision 02 is "AMD Instinct MI60 / MI50": a 16 GB card can only be the MI50.
        Gpu gpu = amd("Vega 20", "66a1", "02", 16368L, diagnostics);
        assertEquals("AMD Instinct MI50", gpu.name());
        assertEquals("mi50", gpu.model());
        assertEquals(16, gpu.memoryGi());
        assertTrue(diagnostics.isEmpty(), diagnostics::toString);
        assertEquals("AMD Radeon Pro VII", amd("Vega 20", "66a1", "06", 16368L, diagnostics).name());
    }

    @Test
    void aTableEntryNamingTwoProductsOfOneSizeIsTheFamilyNeverTheNamesRunTogether() {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Gpu gpu = amd(null, "740c", "01", 131056L, diagnostics);
        assertEquals("aldebaran", gpu.model());
        assertEquals(1, diagnostics.size());
        assertTrue(diagnostics.get(0).message().contains("AMD Instinct MI250X, AMD Instinct MI250"), diagnostics::toString);
    }

    @Test
    void aToolsNameListingSeveralProductsIsResolvedLikeACodeName() {
        List<Diagnostic> diagnostics = new ArrayList<>();
        // "AMD Instinct MI60 / MI50" is libdrm's name for 66A1 revision 02 (the Pro VII is revision 06, named so):
        // the name rules the Pro VII out, and 16 GB the MI60 (issue 28).
        Gpu gpu = amd("AMD Instinct MI60 / MI50", "66a1", null, 16368L, diagnostics);
        assertEquals("mi50", gpu.model(), diagnostics::toString);
        Gpu thirtyTwo = amd("AMD Instinct MI60 / MI50", "66a1", null, 32752L, diagnostics);
        assertEquals("vega20", thirtyTwo.model(), "32 GB leaves MI50 32GB and MI60: " + diagnostics);
        assertTrue(diagnostics.get(diagnostics.size() - 1).message().contains("32 GB of VRAM leaves AMD Instinct MI60, AMD Instinct MI50"),
                diagnostics::toString);
    }

    @Test
    void anExactMarketingNameBeatsAkashsKeyForAnAmbiguousId() {
        Gpu gpu = amd("Radeon Instinct MI50 32GB", "66a1", null, 32752L);
        assertEquals("Radeon Instinct MI50 32GB", gpu.name());
        assertEquals("mi50", gpu.model());
        assertEquals(32, gpu.memoryGi());
    }

    @Test
    void anUnambiguousIdTakesAkashsModel() {
        Gpu gpu = amd("Arcturus GL-XL [Instinct MI100]", "738c", "01", 32752L);
        assertEquals("AMD Instinct MI100", gpu.name());
        assertEquals("mi100", gpu.model());
        assertEquals("akash-gpus", gpu.sources().get("model"));
    }
}

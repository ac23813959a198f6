package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.Tables;
import org.junit.jupiter.api.Test;

/** AMD names and models: libdrm's amdgpu.ids over pci.ids code names, and marketing names over an ambiguous Akash key. */
class AmdNamingTest {

    private static final Normaliser NORMALISER = new Normaliser(Tables.shipped());

    private static Gpu amd(String name, String deviceId, String revision, Long mib) {
        return NORMALISER.normalise(Gpu.builder("rocm-smi-json").vendor(Vendor.AMD).name(name)
                .pciDeviceId(deviceId).pciRevision(revision).memoryMiB(mib).build());
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

    @Test
    void withoutRevisionAnIdSoldAsSeveralProductsKeepsItsCodeNameAndAkashsModel() {
        Gpu gpu = amd("Vega 20", "66a1", null, 32752L);
        assertEquals("Vega 20", gpu.name());
        assertEquals("mi60", gpu.model());
        assertEquals("akash-gpus", gpu.sources().get("model"));
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

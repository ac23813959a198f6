package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.Tables;
import org.junit.jupiter.api.Test;

class NormaliserTest {

    private static final Normaliser NORMALISER = new Normaliser(Tables.shipped());

    @Test
    void aCardTheToolCouldNotNameIsNamedFromPciIds() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("nvidia-smi-xml").name("NVIDIA Graphics Device")
                .pciVendorId("10de").pciDeviceId("2684").memoryMiB(24564L).build());
        assertEquals("GeForce RTX 4090", gpu.name());
        assertEquals("pci.ids", gpu.sources().get("name"));
        assertEquals(Vendor.NVIDIA, gpu.vendor());
        assertEquals("rtx4090", gpu.model());
        assertEquals("akash-gpus", gpu.sources().get("model"));
        assertEquals(24, gpu.memoryGi());
    }

    @Test
    void akashsTableGivesSlugSizeAndInterfaceWhenItKnowsTheCard() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("sysfs-pci").pciVendorId("10de").pciDeviceId("20b0").build());
        assertEquals("a100", gpu.model());
        assertEquals("sxm", gpu.interfaceType());
        assertEquals(40, gpu.memoryGi());
        assertEquals("akash-gpus", gpu.sources().get("memoryGi"));
    }

    @Test
    void aCardNoTableKnowsKeepsItsRawNameAndGetsARuleBasedSlug() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("rocm-smi").vendor(Vendor.AMD).name("AMD Instinct MI300X")
                .pciDeviceId("74a1").memoryMiB(196592L).build());
        assertEquals("AMD Instinct MI300X", gpu.name());
        assertEquals("mi300x", gpu.model());
        assertEquals("derived", gpu.sources().get("model"));
        assertEquals("oam", gpu.interfaceType());
        assertEquals("1002", gpu.pciVendorId());
    }

    @Test
    void emulatedAdaptersAreMarkedAndGetNoInterface() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("sysfs-pci").pciVendorId("1a03").pciDeviceId("2000").build());
        assertEquals(Boolean.TRUE, gpu.emulated());
        assertEquals(Vendor.ASPEED, gpu.vendor());
        assertNull(gpu.interfaceType());
        assertTrue(gpu.name().contains("ASPEED"), gpu.name());
    }

    @Test
    void sharedMemoryGpusAreIntegratedAndHaveNoVramSize() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("clinfo").vendor(Vendor.INTEL).name("Intel(R) UHD Graphics 630")
                .sharedMemory(true).memoryMiB(6383L).build());
        assertEquals("integrated", gpu.interfaceType());
        assertNull(gpu.memoryGi());
    }

    @Test
    void architectureFollowsTheComputeCapability() {
        assertEquals("Hopper", Normaliser.nvidiaArchitecture("9.0"));
        assertEquals("Ada Lovelace", Normaliser.nvidiaArchitecture("8.9"));
        assertEquals("Ampere", Normaliser.nvidiaArchitecture("8.6"));
        assertEquals("Turing", Normaliser.nvidiaArchitecture("7.5"));
        assertEquals("Volta", Normaliser.nvidiaArchitecture("7.0"));
        assertNull(Normaliser.nvidiaArchitecture("x.y"));
    }

    @Test
    void anNvidiaCardWithoutArchitectureGetsItFromItsChipName() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("nvidia-smi-xml").vendor(Vendor.NVIDIA).name("GeForce RTX 2080 Ti")
                .pciVendorId("10de").pciDeviceId("1e04").build());
        assertEquals("Turing", gpu.architecture());
        assertEquals("pci.ids", gpu.sources().get("architecture"));
        assertEquals("Hopper", Normaliser.nvidiaArchitectureFromChip("GH100 [H100 SXM5 80GB]"));
        assertEquals("Ada Lovelace", Normaliser.nvidiaArchitectureFromChip("AD102 [GeForce RTX 4090]"));
        assertNull(Normaliser.nvidiaArchitectureFromChip("Device 2330"));
    }

    @Test
    void anEmulatedAdapterNoTableNamesStillGetsAName() {
        Gpu gpu = NORMALISER.normalise(Gpu.builder("sysfs-pci").pciVendorId("1234").pciDeviceId("1111").build());
        assertEquals(Boolean.TRUE, gpu.emulated());
        assertEquals("QEMU/Bochs standard VGA", gpu.name());
        assertEquals("derived", gpu.sources().get("name"));
    }
}

package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Vendor;
import io.gpudetect.testing.SharedData;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class NormaliserTest {

    /** A fresh one per test: the Normaliser keeps what it judged; skipped without the shared Akash table. */
    private final Normaliser normaliser = new Normaliser(SharedData.replayTables());

    @Test
    void aCardTheToolCouldNotNameIsNamedFromPciIds() {
        Gpu gpu = normaliser.normalise(Gpu.builder("nvidia-smi-xml").name("NVIDIA Graphics Device")
                .pciVendorId("10de").pciDeviceId("2684").memoryMiB(24564L).build(), new ArrayList<>());
        assertEquals("GeForce RTX 4090", gpu.name());
        assertEquals("pci.ids", gpu.sources().get("name"));
        assertEquals(Vendor.NVIDIA, gpu.vendor());
        assertEquals("rtx4090", gpu.model());
        assertEquals("akash-gpus", gpu.sources().get("model"));
        assertEquals(24, gpu.memoryGi());
    }

    @Test
    void aNameMadeOfHexLettersAndDigitsIsAProductNotAnId() {
        Gpu a40 = normaliser.normalise(Gpu.builder("nvidia-smi-q").name("NVIDIA A40")
                .pciVendorId("10de").pciDeviceId("2235").memoryMiB(46068L).build(), new ArrayList<>());
        assertEquals("NVIDIA A40", a40.name());
        assertEquals("nvidia-smi-q", a40.sources().get("name"));
        assertEquals("a40", a40.model());
        for (String id : new String[] {"10de:2235", "[10de:2235]", "0x2235", "2235"}) {
            Gpu named = normaliser.normalise(Gpu.builder("lspci").name(id).pciVendorId("10de").pciDeviceId("2235").build(),
                    new ArrayList<>());
            assertEquals("A40", named.name(), id);
            assertEquals("pci.ids", named.sources().get("name"), id);
        }
    }

    @Test
    void aCutNameGivesAModelOnlyWhenOneProductStartsSoAndFitsTheSize() {
        java.util.List<io.gpudetect.model.Diagnostic> notes = new java.util.ArrayList<>();
        Normaliser normaliser = new Normaliser(SharedData.replayTables());
        Gpu ada = normaliser.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA RTX 6000 Ada Gene...").memoryMiB(49140L).build(), notes);
        assertEquals("rtx6000ada", ada.model());
        assertEquals("pci.ids", ada.sources().get("model"));
        assertEquals("NVIDIA RTX 6000 Ada Gene...", ada.name(), "the name stays as the tool printed it");
        assertTrue(notes.get(0).message().contains("only RTX 6000 Ada Generation remains"), notes.toString());

        Gpu a100 = normaliser.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA A100-SXM...").memoryMiB(40536L).build(), notes);
        assertEquals("a100", a100.model(), "A100 SXM4 40GB and 80GB are both Akash's a100");

        Gpu turing = normaliser.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GeForce RTX 2080 ...").memoryMiB(8192L).build(), notes);
        assertNull(turing.model(), "2080 and 2080 SUPER are both sold with 8 GB");
        assertTrue(notes.get(notes.size() - 1).message().contains("GeForce RTX 2080 SUPER"), notes.toString());
    }

    @Test
    void akashsTableGivesSlugSizeAndInterfaceWhenItKnowsTheCard() {
        Gpu gpu = normaliser.normalise(Gpu.builder("sysfs-pci").pciVendorId("10de").pciDeviceId("20b0").build(),
                new ArrayList<>());
        assertEquals("a100", gpu.model());
        assertEquals(GpuInterface.SXM, gpu.interfaceType());
        assertEquals(40, gpu.memoryGi());
        assertEquals("akash-gpus", gpu.sources().get("memoryGi"));
    }

    @Test
    void aCardNoTableKnowsKeepsItsRawNameAndGetsARuleBasedSlug() {
        Gpu gpu = normaliser.normalise(Gpu.builder("rocm-smi").vendor(Vendor.AMD).name("AMD Instinct MI300X")
                .pciDeviceId("74a1").memoryMiB(196592L).build(), new ArrayList<>());
        assertEquals("AMD Instinct MI300X", gpu.name());
        assertEquals("mi300x", gpu.model());
        assertEquals("derived", gpu.sources().get("model"));
        assertEquals(GpuInterface.OAM, gpu.interfaceType());
        assertEquals("1002", gpu.pciVendorId());
    }

    @Test
    void anInterfaceComesOnlyFromWhatSaysIt() {
        // "NVIDIA H100 80GB HBM3" is the SXM5 module's name, but the PCIe card and the NVL board share the
        // product: with no PCI id (the plain nvidia-smi table, nvidia-smi -L) nothing says which it is.
        Gpu byName = normaliser.normalise(Gpu.builder("nvidia-smi-list").vendor(Vendor.NVIDIA)
                .name("NVIDIA H100 80GB HBM3").build(), new ArrayList<>());
        assertEquals("h100", byName.model());
        assertNull(byName.interfaceType());
        assertNull(byName.sources().get("interface"));

        Gpu sxmName = normaliser.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA)
                .name("NVIDIA A100-SXM4-80GB").build(), new ArrayList<>());
        assertEquals(GpuInterface.SXM, sxmName.interfaceType());
        assertEquals("derived", sxmName.sources().get("interface"));
        assertEquals(GpuInterface.PCIE, normaliser.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA)
                .name("Tesla P100-PCIE-16GB").build(), new ArrayList<>()).interfaceType());
        assertEquals(GpuInterface.PCIE, normaliser.normalise(Gpu.builder("nvidia-smi-list").vendor(Vendor.NVIDIA)
                .name("NVIDIA H100 PCIe").build(), new ArrayList<>()).interfaceType());

        // The same H100 with its PCI device id: Akash's table and pci.ids both list 2330 as the SXM5 module.
        assertEquals(GpuInterface.SXM, normaliser.normalise(Gpu.builder("nvidia-smi-q").name("NVIDIA H100 80GB HBM3")
                .pciVendorId("10de").pciDeviceId("2330").build(), new ArrayList<>()).interfaceType());
        // 2322 is in pci.ids ("GH100 [H800 PCIe]") and not in Akash's table.
        Gpu listed = normaliser.normalise(Gpu.builder("nvml").name("NVIDIA H800").pciVendorId("10de")
                .pciDeviceId("2322").build(), new ArrayList<>());
        assertEquals(GpuInterface.PCIE, listed.interfaceType());
        assertEquals("pci.ids", listed.sources().get("interface"));

        // A card on the PCI bus is not thereby a PCIe card: an L40S (26b9) is in neither table's forms.
        assertNull(normaliser.normalise(Gpu.builder("sysfs-pci").pciVendorId("10de").pciDeviceId("26b9").build(),
                new ArrayList<>())
                .interfaceType());
        assertNull(normaliser.normalise(Gpu.builder("rocm-smi").vendor(Vendor.AMD).name("AMD Radeon RX 6700 XT")
                .pciDeviceId("73df").build(), new ArrayList<>()).interfaceType());
        assertNull(normaliser.normalise(Gpu.builder("rocm-smi").vendor(Vendor.AMD).name("AMD Instinct MI300A")
                .pciDeviceId("74a0").build(),
                        new ArrayList<>()).interfaceType(), "an APU in a socket, not an OAM module");
    }

    @Test
    void aNameStatesAFormOnlyAsAWord() {
        assertEquals(GpuInterface.SXM, NameShapes.formInName("Tesla V100-SXM2-16GB"));
        assertEquals(GpuInterface.SXM, NameShapes.formInName("GH100[H100 SXM5 80GB]"));
        assertEquals(GpuInterface.PCIE, NameShapes.formInName("NVIDIA A100-PCIE-40GB"));
        assertEquals(GpuInterface.PCIE, NameShapes.formInName("GH100 [H100 PCIe]"));
        assertNull(NameShapes.formInName("NVIDIA H100 NVL"));
        assertNull(NameShapes.formInName("NVIDIA GeForce RTX 4090"));
        assertNull(NameShapes.formInName("Pciex Widget")); // not the word PCIe
        assertNull(NameShapes.formInName(null));
    }

    /** Values from NVIDIA's CUDA GPUs list (developer.nvidia.com/cuda-gpus), per product, not per chip. */
    @Test
    void computeCapabilityComesFromTheChipWhenTheToolPrintsNone() {
        assertEquals("7.5", Chips.nvidiaComputeCapabilityFromChip("TU104GL [Tesla T4]"));
        assertEquals("8.6", Chips.nvidiaComputeCapabilityFromChip("GA102GL [RTX A5000]"));
        assertEquals("8.0", Chips.nvidiaComputeCapabilityFromChip("GA100 [A100 SXM4 40GB]"));
        assertEquals("6.0", Chips.nvidiaComputeCapabilityFromChip("GP100GL [Tesla P100 PCIe 16GB]"));
        assertEquals("6.1", Chips.nvidiaComputeCapabilityFromChip("GP108 [GeForce GT 1030]"));
        assertEquals("3.7", Chips.nvidiaComputeCapabilityFromChip("GK210GL [Tesla K80]"));
        assertEquals("3.5", Chips.nvidiaComputeCapabilityFromChip("GK110BGL [Tesla K40m]"));
        assertEquals("3.0", Chips.nvidiaComputeCapabilityFromChip("GK104GL [GRID K520]"));
        assertEquals("5.2", Chips.nvidiaComputeCapabilityFromChip("GM204GL [Tesla M60]"));
        assertEquals("7.0", Chips.nvidiaComputeCapabilityFromChip("GV100GL [Tesla V100 SXM2 16GB]"));
        assertEquals("8.9", Chips.nvidiaComputeCapabilityFromChip("AD102GL [L40S]"));
        assertEquals("9.0", Chips.nvidiaComputeCapabilityFromChip("GH100 [H100 SXM5 80GB]"));
        assertEquals("12.0", Chips.nvidiaComputeCapabilityFromChip("GB202GL [RTX PRO 6000 Blackwell Max-Q]"));
        assertNull(Chips.nvidiaComputeCapabilityFromChip("Device 2330"));

        Gpu t4 = normaliser.normalise(Gpu.builder("nvidia-smi-xml").name("Tesla T4").pciVendorId("10de")
                .pciDeviceId("1eb8").build(), new ArrayList<>());
        assertEquals("7.5", t4.computeCapability());
        assertEquals("pci.ids", t4.sources().get("computeCapability"));
        Gpu reported = normaliser.normalise(Gpu.builder("nvml").name("Tesla T4").pciVendorId("10de")
                .pciDeviceId("1eb8").computeCapability("7.5").build(), new ArrayList<>());
        assertEquals("nvml", reported.sources().get("computeCapability"));
    }

    @Test
    void emulatedAdaptersAreMarkedAndGetNoInterface() {
        Gpu gpu = normaliser.normalise(Gpu.builder("sysfs-pci").pciVendorId("1a03").pciDeviceId("2000").build(),
                new ArrayList<>());
        assertEquals(Boolean.TRUE, gpu.emulated());
        assertEquals(Vendor.ASPEED, gpu.vendor());
        assertNull(gpu.interfaceType());
        assertTrue(gpu.name().contains("ASPEED"), gpu.name());
    }

    @Test
    void sharedMemoryGpusAreIntegratedAndHaveNoVramSize() {
        Gpu gpu = normaliser.normalise(Gpu.builder("clinfo").vendor(Vendor.INTEL).name("Intel(R) UHD Graphics 630")
                .sharedMemory(true).memoryMiB(6383L).build(), new ArrayList<>());
        assertEquals(GpuInterface.INTEGRATED, gpu.interfaceType());
        assertNull(gpu.memoryGi());
    }

    @Test
    void architectureFollowsTheComputeCapability() {
        assertEquals("Hopper", Chips.nvidiaArchitecture("9.0"));
        assertEquals("Ada Lovelace", Chips.nvidiaArchitecture("8.9"));
        assertEquals("Ampere", Chips.nvidiaArchitecture("8.6"));
        assertEquals("Turing", Chips.nvidiaArchitecture("7.5"));
        assertEquals("Volta", Chips.nvidiaArchitecture("7.0"));
        assertNull(Chips.nvidiaArchitecture("x.y"));
    }

    @Test
    void anNvidiaCardWithoutArchitectureGetsItFromItsChipName() {
        Gpu gpu = normaliser.normalise(Gpu.builder("nvidia-smi-xml").vendor(Vendor.NVIDIA).name("GeForce RTX 2080 Ti")
                .pciVendorId("10de").pciDeviceId("1e04").build(), new ArrayList<>());
        assertEquals("Turing", gpu.architecture());
        assertEquals("pci.ids", gpu.sources().get("architecture"));
        assertEquals("Hopper", Chips.nvidiaArchitectureFromChip("GH100 [H100 SXM5 80GB]"));
        assertEquals("Ada Lovelace", Chips.nvidiaArchitectureFromChip("AD102 [GeForce RTX 4090]"));
        assertNull(Chips.nvidiaArchitectureFromChip("Device 2330"));
    }

    @Test
    void anEmulatedAdapterNoTableNamesStillGetsAName() {
        Gpu gpu = normaliser.normalise(Gpu.builder("sysfs-pci").pciVendorId("1234").pciDeviceId("1111").build(),
                new ArrayList<>());
        assertEquals(Boolean.TRUE, gpu.emulated());
        assertEquals("QEMU/Bochs standard VGA", gpu.name());
        assertEquals("derived", gpu.sources().get("name"));
    }

    @Test
    void anAmdChipIsNamedFromItsGfxIdAsPciIdsNamesIt() {
        org.junit.jupiter.api.Assertions.assertEquals("Vega 20", Chips.chipFamilyOfGfx("gfx906"));
        org.junit.jupiter.api.Assertions.assertEquals("Navi 22", Chips.chipFamilyOfGfx(" GFX1031 "));
        org.junit.jupiter.api.Assertions.assertNull(Chips.chipFamilyOfGfx("gfx9999"));
        org.junit.jupiter.api.Assertions.assertNull(Chips.chipFamilyOfGfx(null));
        org.junit.jupiter.api.Assertions.assertEquals(Chips.chipFamily("Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]"),
                Chips.chipFamilyOfGfx("gfx906"), "the same name pci.ids gives for 1002:66a1");
    }
}

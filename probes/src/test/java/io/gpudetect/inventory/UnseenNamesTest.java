package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import io.gpudetect.testing.SharedData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 28's naming kinds on inputs written here in the shapes real hosts print (the real recordings they were
 * checked on are listed in the closing note, not committed): lists and driver details never glued into a slug,
 * cut names resolved only when one product is left, board strings below the device id, the CUs that tell
 * an MI50 from an MI60, GB10's compute capability.
 */
class UnseenNamesTest {

    /** Without Akash's table: the rules here must hold on their own (a provider may run with --akash-table none). */
    private static Normaliser bare() {
        return new Normaliser(Tables.shipped(() -> AkashGpus.absent("not in this test")));
    }

    private static boolean mentions(List<Diagnostic> notes, String... words) {
        for (Diagnostic d : notes) {
            boolean all = true;
            for (String w : words) {
                all &= d.message().contains(w);
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    // Kind 1: lists and driver details.

    @Test
    void aPciIdsListWithoutIdsIsTheChipFamilyWithAWarningNamingTheProducts() {
        List<Diagnostic> notes = new ArrayList<>();
        Gpu gpu = bare().normalise(Gpu.builder("lspci").vendor(Vendor.AMD).pciVendorId("1002")
                .name("Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]").build(), notes);
        assertEquals("navi21", gpu.model());
        assertTrue(mentions(notes, "Radeon RX 6800, Radeon RX 6800 XT, Radeon RX 6900 XT", "navi21"), notes.toString());
    }

    @Test
    void aListWhoseSizesLeaveOneProductIsThatProduct() {
        List<Diagnostic> notes = new ArrayList<>();
        Gpu gpu = bare().normalise(Gpu.builder("lspci").vendor(Vendor.AMD).pciVendorId("1002")
                .name("Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]").memoryMiB(24560L).build(), notes);
        assertEquals("rx7900xtx", gpu.model(), "only the XTX is sold with 24 GB");
    }

    @Test
    void variantsOfOneLaptopPartAreOneProduct() {
        Gpu gpu = bare().normalise(Gpu.builder("lspci").vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("28a0")
                .name("AD107M [GeForce RTX 4060 Max-Q / Mobile]").build(), new ArrayList<>());
        assertEquals("rtx4060m", gpu.model(), "Max-Q and Mobile are both the laptop RTX 4060");
    }

    @Test
    void openClDriverDetailsAreNoPartOfTheNameOrModel() {
        Normaliser n = bare();
        Gpu clover = n.normalise(Gpu.builder("clinfo").vendor(Vendor.AMD).pciVendorId("1002")
                .name("AMD Radeon RX 5500 XT (navi14, LLVM 15.0.7, DRM 3.52, 6.1.0-18-amd64)").build(),
                        new ArrayList<>());
        assertEquals("rx5500xt", clover.model());
        assertEquals("AMD Radeon RX 5500 XT", clover.name());

        List<Diagnostic> notes = new ArrayList<>();
        Gpu rusticl = n.normalise(Gpu.builder("clinfo").vendor(Vendor.AMD).pciVendorId("1002")
                .name("AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, 6.15.5-arch1-1)").build(), notes);
        assertEquals("AMD Radeon Graphics", rusticl.name());
        assertEquals("gfx1151", rusticl.architecture());
        assertEquals("strixhalo", rusticl.model(), "a generic name: the chip its gfx target names");
        assertTrue(mentions(notes, "generic", "Strix Halo", "8060S"), notes.toString());
    }

    @Test
    void aGenericNameWithItsIdsIsNamedByThem() {
        Gpu gpu = bare().normalise(Gpu.builder("clinfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("1586")
                .pciRevision("c1").name("AMD Radeon Graphics").sharedMemory(true).build(), new ArrayList<>());
        assertEquals("AMD Radeon 8060S Graphics", gpu.name());
        assertEquals("radeon8060s", gpu.model());
    }

    @Test
    void aGenericNameWithAnIdTheTablesCannotNameIsTheIdsChip() {
        List<Diagnostic> notes = new ArrayList<>();
        Gpu gpu = bare().normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("13c0")
                .architecture("gfx1036").name("AMD Radeon Graphics").build(), notes);
        assertEquals("graniteridge", gpu.model(), "13c0 is Granite Ridge, though gfx1036 is also Raphael's target");
        assertTrue(mentions(notes, "device 13c0 is Granite Ridge"), notes.toString());
    }

    // Kind 5: cut names.

    @Test
    void aCutNameIsResolvedOnlyWhenTheWidthAndTheSizeLeaveOneProduct() {
        Normaliser n = bare();
        List<Diagnostic> notes = new ArrayList<>();
        Gpu sixteen = n.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GeForce RTX 4070 ...").memoryMiB(16376L).build(), notes);
        assertEquals("rtx4070tis", sixteen.model(), "of the names long enough to be cut, only the Ti SUPER has 16 GB");

        Gpu twelve = n.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GeForce RTX 4070 ...").memoryMiB(12282L).build(), notes);
        assertEquals("rtx4070s", twelve.model(), "the 4070 and 4070 Ti (12 GB) print whole; the SUPER is cut");

        Gpu unknownSize = n.normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GeForce RTX 3080 ...").build(), notes);
        assertNull(unknownSize.model(), "no size: the 3080 Ti and the laptop parts remain");
        assertTrue(mentions(notes, "RTX 3080 ...", "model left unknown"), notes.toString());
    }

    // Kind 6: AMD details.

    @Test
    void aBoardStringThatNamesASeriesLosesToTheDeviceId() {
        List<Diagnostic> notes = new ArrayList<>();
        Gpu gpu = bare().normalise(Gpu.builder("rocm-smi-json").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408")
                .name("AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2").build(), notes);
        assertEquals("mi250x", gpu.model());

        Gpu product = bare().normalise(Gpu.builder("rocm-smi-json").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("74a1")
                .name("AMD Instinct MI300X OAM").build(), new ArrayList<>());
        assertEquals("mi300x", product.model(), "a board string that is a product stays the model");
    }

    @Test
    void anIdWithoutANameIsNamedFromTheTables() {
        Gpu gpu = bare().normalise(Gpu.builder("rocm-smi-table").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408").build(),
                new ArrayList<>());
        assertEquals("mi250x", gpu.model());
        assertTrue(gpu.name().contains("MI250X"), gpu.name());
    }

    @Test
    void computeUnitsTellAnMi50FromAnMi60() {
        Normaliser n = bare();
        Gpu sixty = n.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("Vega 20").architecture("gfx906").memoryMiB(32752L).computeUnits(60).build(), new ArrayList<>());
        assertEquals("mi50", sixty.model());
        Gpu sixtyFour = n.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("Vega 20").architecture("gfx906").memoryMiB(32752L).computeUnits(64).build(), new ArrayList<>());
        assertEquals("mi60", sixtyFour.model());
        Gpu noCount = n.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("Vega 20").architecture("gfx906").memoryMiB(32752L).build(), new ArrayList<>());
        assertEquals("vega20", noCount.model(), "without the count MI50 32GB and MI60 both remain");
    }

    @Test
    void aMarketingNameThatListsProductsIsNoSlugButNarrowsTheIdsProducts() {
        Normaliser n = bare();
        Gpu slash = n.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("AMD Instinct MI50/MI60").architecture("gfx906").computeUnits(60).build(), new ArrayList<>());
        assertEquals("mi50", slash.model(), "never mi50mi60: the name leaves MI50 and MI60, 60 CUs the MI50");
        Gpu device = n.normalise(Gpu.builder("rocminfo").vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("Device 66a1").architecture("gfx906").computeUnits(64).build(), new ArrayList<>());
        assertEquals("mi60", device.model(), "64 CUs: only the MI60");
    }

    // Kind 9.

    @Test
    void gb10IsComputeCapability121() {
        Gpu gpu = bare().normalise(Gpu.builder("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GB10").architecture("Blackwell").build(), new ArrayList<>());
        assertEquals("12.1", gpu.computeCapability());
        assertEquals("12.1", Chips.nvidiaComputeCapabilityFromChip("GB20B [GB10]"));
        assertEquals("12.0", Chips.nvidiaComputeCapabilityFromChip("GB202 [GeForce RTX 5090]"));
        Gpu rtx = bare().normalise(Gpu.builder("nvidia-smi-q").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA GeForce RTX 5090").architecture("Blackwell").build(), new ArrayList<>());
        assertEquals("12.0", rtx.computeCapability());
    }

    @Test
    void theSharedTablesAgree() {
        // With Akash's table (when the shared copy is there) the same cards keep the same models.
        Normaliser n = new Normaliser(SharedData.replayTables());
        assertEquals("mi250x", n.normalise(Gpu.builder("rocm-smi-json").vendor(Vendor.AMD).pciVendorId("1002")
                .pciDeviceId("7408").name("AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2").build(),
                        new ArrayList<>()).model());
    }
}

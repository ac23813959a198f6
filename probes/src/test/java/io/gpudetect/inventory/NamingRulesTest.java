package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.ModelSlug;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each naming rule alone (docs/naming.md): a card as the rules before it would leave it, whether the rule applies,
 * what it decides and the evidence it writes into {@code sources}. The tables are the jar's pci.ids and amdgpu.ids
 * and a two-entry Akash table written here, so that no test depends on the shared copy.
 */
class NamingRulesTest {

    private static final Tables TABLES = Tables.shipped(NamingRulesTest::akash);

    private final List<Diagnostic> diagnostics = new ArrayList<>();

    private static AkashGpus akash() {
        try {
            return AkashGpus.parse("{\"10de\": {\"name\": \"nvidia\", \"devices\": {"
                    + "\"2330\": {\"name\": \"h100\", \"interface\": \"SXM5\", \"memory_size\": \"80Gi\"}}},"
                    + " \"1002\": {\"name\": \"amd\", \"devices\": {"
                    + "\"66a1\": {\"name\": \"mi60\", \"interface\": \"PCIe\", \"memory_size\": \"32Gi\"}}}}", "this test");
        } catch (TableException e) {
            throw new IllegalStateException(e);
        }
    }

    private Card card(Gpu.Builder input) {
        return new Card(input.build(), TABLES, diagnostics);
    }

    private static Gpu.Builder tool() {
        return Gpu.builder("tool");
    }

    /** Runs {@code rule} on {@code card} where it applies, as the normaliser does; fails where it does not. */
    private static Gpu decided(NamingRule rule, Card card) {
        assertTrue(rule.appliesTo(card), "should apply");
        rule.decide(card);
        return card.build();
    }

    @Test
    void vendorFromPciVendorId() {
        NamingRule rule = new VendorRules.FromPciVendorId();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.OTHER).pciVendorId("1002")));
        assertEquals(Vendor.AMD, gpu.vendor());
        assertEquals("derived", gpu.sources().get("vendor"));
        assertFalse(rule.appliesTo(card(tool().pciVendorId("1002").vendor(Vendor.NVIDIA))), "a vendor the tool gave stays");
        assertFalse(rule.appliesTo(card(tool().name("NVIDIA A40"))), "no id");
    }

    @Test
    void vendorFromName() {
        NamingRule rule = new VendorRules.FromName();
        assertEquals(Vendor.NVIDIA, decided(rule, card(tool().name("Tesla T4"))).vendor());
        assertFalse(rule.appliesTo(card(tool().name("Tesla T4").vendor(Vendor.OTHER))));
    }

    @Test
    void pciVendorIdFromVendor() {
        NamingRule rule = new VendorRules.PciVendorIdFromVendor();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.AMD)));
        assertEquals("1002", gpu.pciVendorId());
        assertEquals("derived", gpu.sources().get("pciVendorId"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.OTHER))), "other has no id");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).pciVendorId("1002"))));
    }

    @Test
    void withoutDriverDetails() {
        NamingRule rule = new NameRules.WithoutDriverDetails();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.AMD)
                .name("AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, 6.14.0-33-generic)")));
        assertEquals("AMD Radeon Graphics", gpu.name());
        assertEquals("gfx1151", gpu.architecture());
        assertEquals("derived", gpu.sources().get("architecture"));
        Gpu printed = decided(rule, card(tool().name("AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7)")
                .architecture("gfx1150")));
        assertEquals("gfx1150", printed.architecture(), "a printed architecture stays");
        assertFalse(rule.appliesTo(card(tool().name("NVIDIA A100-SXM4-80GB"))));
    }

    @Test
    void fromAmdIds() {
        NamingRule rule = new NameRules.FromAmdIds(new AmdProducts(TABLES));
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.AMD).name("Vega 20").pciDeviceId("66a1").pciRevision("02")
                .memoryMiB(16368L)));
        assertEquals("AMD Instinct MI50", gpu.name());
        assertEquals("amdgpu.ids", gpu.sources().get("name"));
        assertEquals("mi50", gpu.model());
        assertEquals("derived", gpu.sources().get("model"));
        // Several candidates left: the chip family, and a warning naming them.
        Gpu family = decided(rule, card(tool().vendor(Vendor.AMD).name("Vega 20").pciDeviceId("66a1").memoryMiB(32752L)));
        assertEquals("Vega 20", family.name());
        assertEquals("vega20", family.model());
        assertEquals(1, diagnostics.size(), diagnostics::toString);
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("AMD Instinct MI300X").pciDeviceId("74a1"))),
                "one product's marketing name");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("Vega 20"))), "no device id");
    }

    @Test
    void fromTables() {
        NamingRule rule = new NameRules.FromTables();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2684")
                .name("NVIDIA Graphics Device")));
        assertEquals("GeForce RTX 4090", gpu.name());
        assertEquals("pci.ids", gpu.sources().get("name"));
        Gpu amd = decided(rule, card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408").pciRevision("00")));
        assertEquals("AMD Instinct MI250X", amd.name());
        assertEquals("amdgpu.ids", amd.sources().get("name"));
        assertTrue(rule.appliesTo(card(tool().name("NVIDIA GeForce RTX 2080 ..."))), "a cut name");
        assertFalse(rule.appliesTo(card(tool().name("NVIDIA A40"))));
        // A laptop part older than Ampere keeps its desktop name to slug the model from.
        Card laptop = card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("1cba"));
        rule.decide(laptop);
        assertEquals("Quadro P2000 Mobile", laptop.name());
        assertEquals("Quadro P2000", laptop.slugName());
    }

    @Test
    void emulatedAdapter() {
        NamingRule rule = new NameRules.EmulatedAdapter();
        Gpu qemu = decided(rule, card(tool().pciVendorId("1234").pciDeviceId("1111")));
        assertEquals(Boolean.TRUE, qemu.emulated());
        assertEquals("QEMU/Bochs standard VGA", qemu.name());
        assertEquals("derived", qemu.sources().get("name"));
        Card named = card(tool().pciVendorId("1af4").pciDeviceId("1050").name("Virtio GPU").emulated(false));
        Gpu kept = decided(rule, named);
        assertEquals(Boolean.FALSE, kept.emulated(), "what the tool said stays");
        assertEquals("Virtio GPU", kept.name());
        Card unnamed = card(tool().pciVendorId("15ad").pciDeviceId("0405"));
        rule.decide(unnamed);
        assertNull(unnamed.name(), "the name for people is no name a model is slugged from");
        assertFalse(rule.appliesTo(card(tool().pciVendorId("10de").pciDeviceId("2330"))));
    }

    @Test
    void amdMarketingNameOverAkash() {
        NamingRule rule = new ModelRules.AmdMarketingNameOverAkash();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("AMD Radeon Pro VII")));
        assertEquals(ModelSlug.fromName("AMD Radeon Pro VII"), gpu.model(), "not Akash's mi60 for the id");
        assertNotEquals("mi60", gpu.model());
        assertEquals("derived", gpu.sources().get("model"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1").name("Vega 20"))),
                "a chip code is no marketing name");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1")
                .name("AMD Radeon Pro VII").model("given"))), "a model the tool gave stays");
    }

    @Test
    void fromCutName() {
        NamingRule rule = new ModelRules.FromCutName();
        Gpu gpu = decided(rule, card(tool("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de")
                .name("NVIDIA RTX 6000 Ada Gene...").memoryMiB(49140L)));
        assertEquals("rtx6000ada", gpu.model());
        assertEquals("pci.ids", gpu.sources().get("model"));
        assertEquals(1, diagnostics.size(), "a note says how");
        Card many = card(tool("nvidia-smi-table").vendor(Vendor.NVIDIA).pciVendorId("10de").name("NVIDIA GeForce RTX ..."));
        rule.decide(many);
        assertNull(many.model());
        assertFalse(many.modelOpen(), "left unknown: no later rule guesses from a cut name");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2684")
                .name("NVIDIA GeForce RTX 4090 ..."))), "with a device id the tables name it");
    }

    private static Gpu.Builder tool(String probe) {
        return Gpu.builder(probe);
    }

    @Test
    void fromAkashTable() {
        NamingRule rule = new ModelRules.FromAkashTable();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2330")
                .name("NVIDIA H100 80GB HBM3")));
        assertEquals("h100", gpu.model());
        assertEquals("akash-gpus", gpu.sources().get("model"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2684"))));
    }

    @Test
    void fromListedProducts() {
        NamingRule rule = new ModelRules.FromListedProducts();
        Gpu byMemory = decided(rule, card(tool().vendor(Vendor.AMD).name("AMD Instinct MI60 / MI50").memoryMiB(16368L)));
        assertEquals("mi50", byMemory.model(), "the MI60 is sold with 32 GB only");
        assertEquals("derived", byMemory.sources().get("model"));
        Card chip = card(tool().vendor(Vendor.AMD).name("Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]").memoryMiB(16368L));
        assertEquals("navi21", decided(rule, chip).model(), "all three are 16 GB: the chip family");
        assertTrue(diagnostics.stream().anyMatch(d -> d.message().contains("names several products")), diagnostics::toString);
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("AMD Instinct MI300X"))));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.INTEL).name("Arc A770 / A750"))), "NVIDIA and AMD only");
    }

    @Test
    void fromGenericAmdName() {
        NamingRule rule = new ModelRules.FromGenericAmdName();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.AMD).name("AMD Radeon Graphics").architecture("gfx1151")));
        assertEquals("strixhalo", gpu.model());
        assertEquals(1, diagnostics.size());
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("AMD Radeon Graphics"))), "no chip known");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("AMD Radeon 8060S Graphics").architecture("gfx1151"))));
    }

    @Test
    void fromName() {
        NamingRule rule = new ModelRules.FromName();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).name("NVIDIA GeForce RTX 4090")));
        assertEquals("rtx4090", gpu.model());
        assertEquals("derived", gpu.sources().get("model"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA GeForce RTX 2080 ..."))), "cut");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("Graphics Device"))), "a placeholder");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA A40").model("a40"))), "given");
    }

    @Test
    void amdIdOverBoardName() {
        NamingRule rule = new ModelRules.AmdIdOverBoardName();
        NamingRule byName = new ModelRules.FromName();
        Card board = card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408").pciRevision("00")
                .name("AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2"));
        byName.decide(board);
        assertEquals("mi250x", decided(rule, board).model());
        Card product = card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408").pciRevision("00")
                .name("AMD Instinct MI210"));
        byName.decide(product);
        assertEquals("mi210", decided(rule, product).model(), "a board name that is a product stays the model");
        Card fromTable = card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("7408"));
        fromTable.model(new ModelRules.FromAkashTable(), "mi200", "akash-gpus");
        assertFalse(rule.appliesTo(fromTable), "only a model slugged from the name");
    }

    @Test
    void memoryFromMiB() {
        NamingRule rule = new MemoryRules.FromMiB();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2330").memoryMiB(81559L)));
        assertEquals(80, gpu.memoryGi());
        assertEquals("derived", gpu.sources().get("memoryGi"));
        assertFalse(rule.appliesTo(card(tool().memoryMiB(81559L).memoryGi(80))));
        assertFalse(rule.appliesTo(card(tool().memoryMiB(65536L).sharedMemory(true))), "the host's memory");
    }

    @Test
    void memoryFromAkashTable() {
        NamingRule rule = new MemoryRules.FromAkashTable();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2330")));
        assertEquals(80, gpu.memoryGi());
        assertEquals("akash-gpus", gpu.sources().get("memoryGi"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2684"))));
    }

    @Test
    void memoryStatedInName() {
        NamingRule rule = new MemoryRules.StatedInName();
        assertEquals(80, decided(rule, card(tool().vendor(Vendor.NVIDIA).name("NVIDIA H100 80GB HBM3"))).memoryGi());
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).name("AMD Radeon Instinct MI50 32GB"))), "NVIDIA only");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA GeForce RTX 4090"))));
    }

    @Test
    void interfaceFromAkashTable() {
        NamingRule rule = new InterfaceRules.FromAkashTable();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2330")));
        assertEquals(GpuInterface.SXM, gpu.interfaceType());
        assertEquals("akash-gpus", gpu.sources().get("interface"));
        assertFalse(rule.appliesTo(card(tool().pciVendorId("10de").pciDeviceId("2330").interfaceType(GpuInterface.PCIE))),
                "what the tool printed stays");
    }

    @Test
    void sharedMemoryIsIntegrated() {
        NamingRule rule = new InterfaceRules.SharedMemoryIsIntegrated();
        assertEquals(GpuInterface.INTEGRATED, decided(rule, card(tool().sharedMemory(true))).interfaceType());
        assertFalse(rule.appliesTo(card(tool().sharedMemory(false))));
    }

    @Test
    void interfaceStatedInName() {
        NamingRule rule = new InterfaceRules.StatedInName();
        assertEquals(GpuInterface.SXM, decided(rule, card(tool().name("Tesla V100-SXM2-16GB"))).interfaceType());
        assertEquals(GpuInterface.PCIE, decided(rule, card(tool().name("NVIDIA H100 PCIe"))).interfaceType());
        assertFalse(rule.appliesTo(card(tool().name("NVIDIA H100 80GB HBM3"))), "an H100 is sold in every form");
    }

    @Test
    void interfaceStatedInPciIds() {
        NamingRule rule = new InterfaceRules.StatedInPciIds();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("20b0")));
        assertEquals(GpuInterface.SXM, gpu.interfaceType());
        assertEquals("pci.ids", gpu.sources().get("interface"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("26b9"))));
    }

    @Test
    void oamOnlyModel() {
        NamingRule rule = new InterfaceRules.OamOnlyModel();
        assertEquals(GpuInterface.OAM, decided(rule, card(tool().vendor(Vendor.AMD).model("mi300x"))).interfaceType());
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).model("mi300a"))), "an APU in a socket");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).model("mi300"))), "could be either");
    }

    @Test
    void computeCapabilityFromChip() {
        NamingRule rule = new ChipRules.ComputeCapabilityFromChip();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2235")));
        assertEquals("8.6", gpu.computeCapability());
        assertEquals("pci.ids", gpu.sources().get("computeCapability"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2235")
                .computeCapability("8.6"))));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.AMD).pciVendorId("1002").pciDeviceId("66a1"))));
    }

    @Test
    void computeCapabilityByName() {
        NamingRule rule = new ChipRules.ComputeCapabilityByName();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").name("NVIDIA A40")));
        assertEquals("8.6", gpu.computeCapability());
        assertEquals("pci.ids", gpu.sources().get("computeCapability"));
        Card unknown = card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").name("NVIDIA Nonesuch 9000"));
        rule.decide(unknown);
        assertTrue(unknown.computeCapabilityOpen(), "no chip of that name: open for the next rule");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("2235")
                .name("NVIDIA A40"))), "a listed device id decides by chip");
    }

    @Test
    void gb10ByName() {
        NamingRule rule = new ChipRules.Gb10ByName();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).name("NVIDIA GB10")));
        assertEquals("12.1", gpu.computeCapability());
        assertEquals("derived", gpu.sources().get("computeCapability"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA GB100"))));
    }

    @Test
    void rtxBlackwell() {
        NamingRule rule = new ChipRules.RtxBlackwell();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("ffff")
                .name("NVIDIA RTX PRO 9000 Blackwell").architecture("Blackwell")));
        assertEquals("12.0", gpu.computeCapability());
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA B200").architecture("Blackwell"))),
                "the data-centre parts carry no RTX");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA RTX PRO 9000"))), "no architecture");
    }

    @Test
    void architectureFromComputeCapability() {
        NamingRule rule = new ChipRules.ArchitectureFromComputeCapability();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).computeCapability("9.0")));
        assertEquals("Hopper", gpu.architecture());
        assertEquals("derived", gpu.sources().get("architecture"));
        assertFalse(rule.appliesTo(card(tool().computeCapability("9.0").architecture("Hopper"))));
    }

    @Test
    void architectureFromChip() {
        NamingRule rule = new ChipRules.ArchitectureFromChip();
        Gpu gpu = decided(rule, card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("1e04")));
        assertEquals("Turing", gpu.architecture());
        assertEquals("pci.ids", gpu.sources().get("architecture"));
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).pciVendorId("10de").pciDeviceId("1e04")
                .computeCapability("7.5"))), "a printed compute capability decides (the rule before)");
        assertFalse(rule.appliesTo(card(tool().vendor(Vendor.NVIDIA).name("NVIDIA A40"))), "no device id");
    }

    @Test
    void docsListTheRulesInTheOrderTheyRun() throws java.io.IOException {
        // docs/naming.md is how a newcomer reads the list: a rule added, moved or renamed here must be there too.
        List<String> documented = new ArrayList<>();
        java.util.regex.Pattern row = java.util.regex.Pattern.compile("^\\| \\d+ \\| `([A-Za-z]+\\.[A-Za-z0-9]+)` \\|");
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("../docs/naming.md"))) {
            java.util.regex.Matcher m = row.matcher(line);
            if (m.find()) {
                documented.add(m.group(1));
            }
        }
        List<String> running = new ArrayList<>();
        for (NamingRule rule : Normaliser.inOrder(TABLES)) {
            running.add(rule.getClass().getEnclosingClass().getSimpleName() + "." + rule.getClass().getSimpleName());
        }
        assertEquals(running, documented);
    }

    @Test
    void aClosedFieldIsLeftToNoLaterRule() {
        // A name listing products of different sizes, with no size to tell them apart and no chip: unknown, and the
        // normaliser's list never slugs the list run together.
        Gpu gpu = new Normaliser(TABLES).normalise(tool().vendor(Vendor.AMD).name("AMD Instinct MI60 / MI50").build(),
                diagnostics);
        assertNull(gpu.model(), gpu::toString);
    }
}

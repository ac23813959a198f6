package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Profiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The label profiles over the real recordings and the hand-made cases ({@link Fixtures}), read through BundleSource and Detector. */
class LabelProfilesTest {

    private static final LabelProfiles ALL = Profiles.of("gpu-detect,nvidia,amd,akash");

    static Stream<Path> bundles() {
        return Fixtures.allBundles().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bundles")
    void everyRecordingGivesValidLabelsWithNoKeyWrittenTwice(Path bundle) {
        Inventory inventory = Fixtures.detect(bundle);
        SortedMap<String, String> labels = ALL.render(inventory); // throws if two profiles share a key
        // The discrete GPUs; on a node with only integrated ones, those.
        long integrated = inventory.realGpus().stream().filter(g -> g.interfaceType() == io.gpudetect.model.GpuInterface.INTEGRATED).count();
        long discrete = inventory.realGpus().size() - integrated;
        assertEquals(String.valueOf(discrete > 0 ? discrete : integrated), labels.get("gpu-detect.io/gpu.count"));
        assertEquals(integrated > 0 ? String.valueOf(integrated) : null, labels.get("gpu-detect.io/gpu.integrated.count"));
        labels.forEach((k, v) -> {
            String name = k.substring(k.indexOf('/') + 1);
            assertTrue(LabelText.isValid(name) && !name.isEmpty(), "key " + k);
            assertTrue(LabelText.isValid(v), "value of " + k + ": " + v);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bundles")
    void labelsDoNotDependOnTheOrderCardsWereSeenIn(Path bundle) {
        Inventory inventory = Fixtures.detect(bundle);
        List<Gpu> reversed = new ArrayList<>(inventory.gpus());
        Collections.reverse(reversed);
        Inventory shuffled = Inventories.of(inventory.source(), reversed, inventory.probes(), inventory.diagnostics());
        assertEquals(ALL.render(inventory), ALL.render(shuffled));
    }

    static Stream<Arguments> expectedLabels() {
        return Stream.of(
                Arguments.of("hosts/tesla-t4_515.105.01_v11", "gpu-detect", map(
                        "gpu-detect.io/gpu.count", "1",
                        "gpu-detect.io/gpu.vendors", "nvidia",
                        "gpu-detect.io/gpu.vendor.nvidia.count", "1",
                        "gpu-detect.io/gpu.vendor.nvidia.driver", "515.105.01",
                        "gpu-detect.io/gpu.model", "t4",
                        "gpu-detect.io/gpu.mixed", "false",
                        "gpu-detect.io/gpu.memory-gi.min", "16",
                        "gpu-detect.io/gpu.model.t4.count", "1",
                        "gpu-detect.io/gpu.model.t4.memory-gi", "16",
                        "gpu-detect.io/gpu.model.t4.interface", "pcie",
                        "gpu-detect.io/gpu.unhealthy.count", "0",
                        "gpu-detect.io/gpu.memory.unified", "false",
                        // nvidia-smi.xml: max_link_width 16x, current_link_width 8x (an AWS g4dn slot).
                        "gpu-detect.io/gpu.pcie.degraded.count", "1")),
                Arguments.of("hosts/tesla-t4_515.105.01_v11", "nvidia", map(
                        "nvidia.com/gpu.count", "1",
                        "nvidia.com/gpu.product", "Tesla-T4",
                        "nvidia.com/gpu.memory", "15360",
                        "nvidia.com/gpu.family", "turing",
                        "nvidia.com/cuda.driver-version.full", "515.105.01",
                        "nvidia.com/cuda.driver-version.major", "515",
                        "nvidia.com/cuda.driver-version.minor", "105",
                        "nvidia.com/cuda.driver-version.revision", "01",
                        "nvidia.com/cuda.runtime-version.full", "11.7",
                        "nvidia.com/cuda.runtime-version.major", "11",
                        "nvidia.com/cuda.runtime-version.minor", "7",
                        "nvidia.com/mig.capable", "false",
                        // GFD's older names, the chip's compute capability, GFD's defaults and no DMI name recorded
                        "nvidia.com/cuda.driver.major", "515", "nvidia.com/cuda.driver.minor", "105",
                        "nvidia.com/cuda.driver.rev", "01", "nvidia.com/cuda.runtime.major", "11",
                        "nvidia.com/cuda.runtime.minor", "7", "nvidia.com/gpu.compute.major", "7",
                        "nvidia.com/gpu.compute.minor", "5", "nvidia.com/gpu.replicas", "1",
                        "nvidia.com/gpu.sharing-strategy", "none", "nvidia.com/mps.capable", "false",
                        "nvidia.com/gpu.machine", "unknown")),
                Arguments.of("hosts/tesla-t4_515.105.01_v11", "akash", map(
                        "akash.network", "true",
                        "nvidia.com/gpu.present", "true",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4.ram.16Gi", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4.interface.pcie", "1")),
                Arguments.of("hosts/tesla-t4_515.105.01_v11", "amd", map()),
                // MIG node: A100 SXM4 with MIG on and two GPU instances.
                Arguments.of("hosts/a100-sxm4-40gb_mig-enabled_510.47.03_v11", "akash", map(
                        "akash.network", "true",
                        "nvidia.com/gpu.present", "true",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.a100", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.a100.ram.40Gi", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.a100.interface.sxm", "1")),
                // Mixed node: two RTX 4090 (one with a name over 63 characters, with '(') and a T4.
                Arguments.of("cases/mixed-rtx4090-t4-long-name", "akash", map(
                        "akash.network", "true",
                        "nvidia.com/gpu.present", "true",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090", "2",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090.ram.24Gi", "2",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090.interface.pcie", "2",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4.ram.16Gi", "1",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.t4.interface.pcie", "1")),
                Arguments.of("cases/mixed-rtx4090-t4-long-name", "gpu-detect", map(
                        "gpu-detect.io/gpu.count", "3",
                        "gpu-detect.io/gpu.vendors", "nvidia",
                        "gpu-detect.io/gpu.vendor.nvidia.count", "3",
                        "gpu-detect.io/gpu.vendor.nvidia.driver", "535.129.03",
                        "gpu-detect.io/gpu.mixed", "true",
                        "gpu-detect.io/gpu.memory-gi.min", "16",
                        "gpu-detect.io/gpu.model.rtx4090.count", "2",
                        "gpu-detect.io/gpu.model.rtx4090.memory-gi", "24",
                        "gpu-detect.io/gpu.model.rtx4090.interface", "pcie",
                        "gpu-detect.io/gpu.model.t4.count", "1",
                        "gpu-detect.io/gpu.model.t4.memory-gi", "16",
                        "gpu-detect.io/gpu.model.t4.interface", "pcie",
                        "gpu-detect.io/gpu.unhealthy.count", "0",
                        // No source of this case prints the link: no degraded count at all.
                        "gpu-detect.io/gpu.memory.unified", "false")),
                // AMD, real rocm-smi recording: four MI100 that agree on every property.
                Arguments.of("hosts/rocm-smi_4x-instinct-mi100_rocm-6.0.2_showallinfo", "amd,akash", map(
                        "amd.com/gpu.product-name", "AMD_Instinct_MI100",
                        "amd.com/gpu.vram", "32G",
                        "amd.com/gpu.device-id", "738c",
                        "amd.com/gpu.driver-version", "6.3.6",
                        "amd.com/gpu.compute-partitioning-supported", "false",
                        "amd.com/gpu.memory-partitioning-supported", "false",
                        "beta.amd.com/gpu.product-name", "AMD_Instinct_MI100",
                        "beta.amd.com/gpu.product-name.AMD_Instinct_MI100", "4",
                        "beta.amd.com/gpu.vram", "32G",
                        "beta.amd.com/gpu.vram.32G", "4",
                        "beta.amd.com/gpu.device-id", "738c",
                        "beta.amd.com/gpu.device-id.738c", "4",
                        "akash.network", "true",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100", "4",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100.ram.32Gi", "4",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100.interface.pcie", "4")),
                // GPU-less node: our count says 0; akash marks the node as the operator does every node it
                // manages; the vendor profiles write nothing.
                Arguments.of("cases/no-gpu", "gpu-detect,nvidia,amd,akash", map("gpu-detect.io/gpu.count", "0",
                        "akash.network", "true")));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("expectedLabels")
    void recordingsGiveExactlyTheseLabels(String bundle, String profiles, Map<String, String> expected) {
        Inventory inventory = Fixtures.detect(Fixtures.bundle(bundle));
        assertEquals(new TreeMap<>(expected), Profiles.of(profiles).render(inventory));
    }

    /**
     * What Akash's inventory operator writes on these hosts, worked out by hand from its code
     * (akash-network/provider {@code afc4dd7c}, {@code operator/inventory/node-discovery.go}): {@code parseGPUInfo}
     * looks each card's PCI vendor and device id up in Akash's {@code gpus.json} (the vendor's {@code name}; the
     * device's {@code name}, {@code interface}, {@code memory_size}) and skips a card it does not list;
     * {@code generateLabels} writes {@code akash.network=true}, {@code nvidia.com/gpu.present=true} when a card's
     * vendor is {@code nvidia}, and for each card adds 1 to
     * {@code akash.network/capabilities.gpu.vendor.<vendor>.model.<name>}, to {@code .ram.<memory_size>} under it
     * and to {@code .interface.<i>} under it, {@code i} being the table's interface lower-cased with any
     * {@code sxm*} folded to {@code sxm} ({@code FilterGPUInterface}).
     */
    static Stream<Arguments> operatorLabels() {
        String nvidia = "akash.network/capabilities.gpu.vendor.nvidia.model.";
        return Stream.of(
                // 10de:2330 {name: h100, interface: SXM5, memory_size: 80Gi}
                Arguments.of("cases/nvml-h100-sxm", map("akash.network", "true", "nvidia.com/gpu.present", "true",
                        nvidia + "h100", "1", nvidia + "h100.ram.80Gi", "1", nvidia + "h100.interface.sxm", "1")),
                // 10de:2331 {h100, PCIe, 80Gi}, 10de:2684 {rtx4090, PCIe, 24Gi}, 10de:20f1 {a100, PCIe, 40Gi}
                Arguments.of("cases/nvml-mixed-h100-rtx4090-a100", map("akash.network", "true",
                        "nvidia.com/gpu.present", "true",
                        nvidia + "h100", "1", nvidia + "h100.ram.80Gi", "1", nvidia + "h100.interface.pcie", "1",
                        nvidia + "rtx4090", "1", nvidia + "rtx4090.ram.24Gi", "1", nvidia + "rtx4090.interface.pcie", "1",
                        nvidia + "a100", "1", nvidia + "a100.ram.40Gi", "1", nvidia + "a100.interface.pcie", "1")),
                // 2 x 10de:2231 {a5000, PCIe, 24Gi}
                Arguments.of("hosts/2x-rtx-a5000_590.44.01_v13", map("akash.network", "true", "nvidia.com/gpu.present", "true",
                        nvidia + "a5000", "2", nvidia + "a5000.ram.24Gi", "2", nvidia + "a5000.interface.pcie", "2")),
                // 2 x 10de:1e04 {rtx2080ti, PCIe, 11Gi}
                Arguments.of("hosts/2x-geforce-rtx-2080-ti_410.73_v10", map("akash.network", "true",
                        "nvidia.com/gpu.present", "true", nvidia + "rtx2080ti", "2", nvidia + "rtx2080ti.ram.11Gi", "2",
                        nvidia + "rtx2080ti.interface.pcie", "2")),
                // 10de:2bb4 {pro6000mq, PCIe, 96Gi}
                Arguments.of("hosts/rtx-pro-6000-blackwell-maxq_590.44.01_v13", map("akash.network", "true",
                        "nvidia.com/gpu.present", "true", nvidia + "pro6000mq", "1", nvidia + "pro6000mq.ram.96Gi", "1",
                        nvidia + "pro6000mq.interface.pcie", "1")),
                // 4 x 1002:738c {mi100, PCIe, 32Gi}, vendor 1002 {name: amd}: no nvidia.com/gpu.present
                Arguments.of("hosts/rocm-smi_4x-instinct-mi100_rocm-6.0.2_showallinfo", map("akash.network", "true",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100", "4",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100.ram.32Gi", "4",
                        "akash.network/capabilities.gpu.vendor.amd.model.mi100.interface.pcie", "4")),
                // No GPU: the operator still marks a node it manages.
                Arguments.of("cases/no-gpu", map("akash.network", "true")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operatorLabels")
    void akashProfileWritesWhatTheInventoryOperatorWrites(String bundle, Map<String, String> operator) {
        Inventory inventory = Fixtures.detect(Fixtures.bundle(bundle));
        assertEquals(new TreeMap<>(operator), new AkashProfile().labels(inventory));
    }

    @Test
    void aCardAkashsTableDoesNotListIsStillCountedBesideTheOperatorsKeys() {
        // The table has no 10de:26b9: the operator skips the L40S, the profile counts it under the inventory's
        // model slug with its own size (46068 MiB, sold as 48 GB) and no interface (nothing states one).
        SortedMap<String, String> labels = new AkashProfile().labels(Fixtures.detect(Fixtures.host("l40s_595.80_text-formats")));
        String nvidia = "akash.network/capabilities.gpu.vendor.nvidia.model.";
        assertEquals(map("akash.network", "true", "nvidia.com/gpu.present", "true",
                nvidia + "l40s", "1", nvidia + "l40s.ram.48Gi", "1"), labels);
    }

    @Test
    void anApuOnlyNodeIsLabelledUnifiedMemory() {
        // lspci -nn of a Ryzen 7 5700U laptop: its Lucienne graphics is the node's only GPU, using the host's memory.
        Inventory inventory = Fixtures.detect(Fixtures.host("lspci_ryzen-7-5700u-apu_lucienne_lspci-nn"));
        assertEquals("true", new GpuDetectProfile().labels(inventory).get("gpu-detect.io/gpu.memory.unified"));
    }

    @Test
    void twoGeforcesSharingTheBoardsLanesCountAsDegradedLinks() {
        // nvidia-smi.xml: both RTX 2070 show max_link_width 16x, current_link_width 8x (and Gen1 of Gen3, idle).
        Inventory inventory = Fixtures.detect(Fixtures.host("2x-geforce-rtx-2070_590.44.01_v13"));
        assertEquals("2", new GpuDetectProfile().labels(inventory).get("gpu-detect.io/gpu.pcie.degraded.count"));
    }

    @Test
    void anIntegratedGpuBesideCardsIsCountedApartAndNeverForAkash() {
        // Two RTX A5000 (nvidia-smi -q -x) and an Intel HD Graphics that clinfo reports with unified memory.
        Inventory inventory = Fixtures.detect(Fixtures.testCase("intel-igpu-beside-2x-rtx-a5000"));
        assertEquals(3, inventory.realGpus().size(), "the inventory lists all three");
        assertEquals(map(
                "gpu-detect.io/gpu.count", "2",
                "gpu-detect.io/gpu.integrated.count", "1",
                "gpu-detect.io/gpu.vendors", "nvidia",
                "gpu-detect.io/gpu.vendor.nvidia.count", "2",
                "gpu-detect.io/gpu.vendor.nvidia.driver", "590.44.01",
                "gpu-detect.io/gpu.model", "a5000",
                "gpu-detect.io/gpu.mixed", "false",
                "gpu-detect.io/gpu.memory-gi.min", "24",
                "gpu-detect.io/gpu.model.a5000.count", "2",
                "gpu-detect.io/gpu.model.a5000.memory-gi", "24",
                "gpu-detect.io/gpu.model.a5000.interface", "pcie",
                "gpu-detect.io/gpu.unhealthy.count", "0",
                // The iGPU is unified but not counted beside the cards; both A5000 run at 16x of 16x.
                "gpu-detect.io/gpu.memory.unified", "false",
                "gpu-detect.io/gpu.pcie.degraded.count", "0"), new GpuDetectProfile().labels(inventory));
        // 2 x 10de:2231 {a5000, PCIe, 24Gi}: what the operator writes on the same cards alone.
        String nvidia = "akash.network/capabilities.gpu.vendor.nvidia.model.";
        assertEquals(map("akash.network", "true", "nvidia.com/gpu.present", "true",
                nvidia + "a5000", "2", nvidia + "a5000.ram.24Gi", "2", nvidia + "a5000.interface.pcie", "2"),
                new AkashProfile().labels(inventory));

        // sysfs: an Intel UHD 770 (i915, 00:02.0) beside an RTX 3090.
        SortedMap<String, String> uhd = ALL.render(Fixtures.detect(Fixtures.testCase("sysfs_intel-igpu-beside-nvidia")));
        assertEquals("nvidia", uhd.get("gpu-detect.io/gpu.vendors"));
        assertEquals("false", uhd.get("gpu-detect.io/gpu.mixed"));
        assertEquals("rtx3090", uhd.get("gpu-detect.io/gpu.model"));
        assertFalse(uhd.keySet().stream().anyMatch(k -> k.contains("intel") || k.contains("uhd770")), uhd.toString());
    }

    @Test
    void aNodeWithOnlyIntegratedGpusIsDescribedByThemButOffersNothingToAkash() {
        // Real recordings: a Z97 desktop whose only GPU is the Haswell iGPU [8086:0412], and a Ryzen 7 5700U
        // mini-PC whose only GPU is its Lucienne iGPU [1002:164c] (lspci -nn).
        SortedMap<String, String> haswell = ALL.render(Fixtures.detect(
                Fixtures.host("lspci_intel-haswell-hd4600-igpu_z97_lspci-nn")));
        assertEquals("1", haswell.get("gpu-detect.io/gpu.count"));
        assertEquals("1", haswell.get("gpu-detect.io/gpu.integrated.count"));
        assertEquals("intel", haswell.get("gpu-detect.io/gpu.vendors"));
        assertEquals("1", haswell.get("gpu-detect.io/gpu.vendor.intel.count"));
        assertEquals("false", haswell.get("gpu-detect.io/gpu.mixed"));
        assertEquals("xeone31200v34thcoreprocessorintegratedcontroller", haswell.get("gpu-detect.io/gpu.model"));
        assertTrue(haswell.containsValue("integrated"), "the model's interface key: " + haswell);
        assertFalse(haswell.containsKey("gpu-detect.io/gpu.memory-gi.min"), "no memory of its own");
        assertEquals(List.of("akash.network"), haswell.keySet().stream().filter(k -> k.startsWith("akash.network")).toList(),
                "Akash's table lists no integrated GPU: the node is marked, nothing is offered");
        SortedMap<String, String> apu = ALL.render(Fixtures.detect(Fixtures.host("lspci_ryzen-7-5700u-apu_lucienne_lspci-nn")));
        assertEquals("1", apu.get("gpu-detect.io/gpu.count"));
        assertEquals("1", apu.get("gpu-detect.io/gpu.integrated.count"));
        assertEquals("amd", apu.get("gpu-detect.io/gpu.vendors"));
        assertFalse(apu.keySet().stream().anyMatch(k -> k.startsWith("akash.network/")), apu.toString());
    }

    @Test
    void migNodeIsLabelledMigCapableWithItsInstances() {
        SortedMap<String, String> labels = ALL.render(Fixtures.detect(Fixtures.host("a100-sxm4-40gb_mig-enabled_510.47.03_v11")));
        assertEquals("true", labels.get("nvidia.com/mig.capable"));
        assertEquals("NVIDIA-A100-SXM4-40GB", labels.get("nvidia.com/gpu.product"));
        assertEquals("40960", labels.get("nvidia.com/gpu.memory"));
        assertEquals("1", labels.get("gpu-detect.io/gpu.mig.enabled.count"));
        assertEquals("2", labels.get("gpu-detect.io/gpu.mig.instances"));
        assertEquals("sxm", labels.get("gpu-detect.io/gpu.model.a100.interface"));
    }

    @Test
    void mixedNodeDescribesTheMostNumerousProductAndNeverTheLongName() {
        SortedMap<String, String> labels = ALL.render(Fixtures.detect(Fixtures.testCase("mixed-rtx4090-t4-long-name")));
        // Three different names, one card each: ties go to the first name in sort order, on every pass.
        assertEquals("NVIDIA-GeForce-RTX-4090", labels.get("nvidia.com/gpu.product"));
        assertEquals("3", labels.get("nvidia.com/gpu.count"));
        assertEquals("24564", labels.get("nvidia.com/gpu.memory"));
        assertFalse(labels.containsKey("gpu-detect.io/gpu.model"), "no single model on a mixed node");
    }

    @Test
    void twoProfilesWritingOneKeyFailLoudly() {
        LabelProfile intruder = new LabelProfile() {
            @Override
            public String name() {
                return "intruder";
            }

            @Override
            public SortedMap<String, String> labels(Inventory inventory) {
                return new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "7"));
            }
        };
        LabelProfiles both = LabelProfiles.of(new GpuDetectProfile(), intruder);
        Inventory inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> both.render(inventory));
        assertTrue(e.getMessage().contains("gpu-detect.io/gpu.count"), e.getMessage());
    }

    @Test
    void selectionIsMergedInOneFixedOrderAndUnknownNamesAreRefused() {
        assertEquals(List.of("gpu-detect", "nvidia", "akash"), Profiles.of("akash, NVIDIA gpu-detect").names());
        assertEquals(List.of(), Profiles.of("none").names());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Profiles.of("gfd"));
        assertTrue(e.getMessage().contains("'gfd'") && e.getMessage().contains("akash"), e.getMessage());
    }

    @Test
    void amdCardsGetTheLabellersKeysWithCountsOnMixedNodes() {
        Gpu mi300x = amd("AMD Instinct MI300X OAM", "74a1", 196592L, "gfx942", 304);
        Gpu mi210 = amd("AMD Instinct MI210", "740f", 65520L, "gfx90a", 104);
        Inventory single = Inventories.of("test", List.of(mi300x, mi300x), List.of(), List.of());
        SortedMap<String, String> both = new AmdProfile().labels(single);
        assertEquals(map("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", "amd.com/gpu.vram", "192G",
                "amd.com/gpu.family", "AI", "amd.com/gpu.device-id", "74a1", "amd.com/gpu.cu-count", "304",
                "amd.com/gpu.simd-count", "1216", "amd.com/gpu.driver-version", "6.8.5",
                "amd.com/gpu.compute-partitioning-supported", "false", "amd.com/gpu.memory-partitioning-supported", "false"),
                new TreeMap<>(both.headMap("b")));
        assertEquals(map("beta.amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM",
                "beta.amd.com/gpu.product-name.AMD_Instinct_MI300X_OAM", "2", "beta.amd.com/gpu.vram", "192G",
                "beta.amd.com/gpu.vram.192G", "2", "beta.amd.com/gpu.family", "AI", "beta.amd.com/gpu.family.AI", "2",
                "beta.amd.com/gpu.device-id", "74a1", "beta.amd.com/gpu.device-id.74a1", "2", "beta.amd.com/gpu.cu-count", "304",
                "beta.amd.com/gpu.cu-count.304", "2", "beta.amd.com/gpu.simd-count", "1216",
                "beta.amd.com/gpu.simd-count.1216", "2"), new TreeMap<>(both.tailMap("b")),
                "the labeller's beta form: the value and the count; no beta driver-version, as the labeller");
        Inventory mixed = Inventories.of("test", List.of(mi300x, mi210, mi300x), List.of(), List.of());
        SortedMap<String, String> labels = new AmdProfile().labels(mixed);
        assertEquals("2", labels.get("amd.com/gpu.product-name.AMD_Instinct_MI300X_OAM"));
        assertEquals("1", labels.get("amd.com/gpu.product-name.AMD_Instinct_MI210"));
        assertEquals("2", labels.get("amd.com/gpu.vram.192G"));
        assertEquals("1", labels.get("amd.com/gpu.vram.64G"));
        assertEquals("6.8.5", labels.get("amd.com/gpu.driver-version"), "a value all cards share keeps the plain form");
        assertFalse(labels.containsKey("amd.com/gpu.product-name"), "no single product on a mixed node");
        assertEquals("AI", labels.get("amd.com/gpu.family"), "CDNA 2 and 3 are both the kernel's family AI");
        assertEquals("2", labels.get("amd.com/gpu.simd-count.1216"));
        assertEquals("1", labels.get("amd.com/gpu.simd-count.416"), "MI210: 104 CUs of 4 SIMDs, as the labeller's own test");
        assertEquals("2", labels.get("beta.amd.com/gpu.vram.192G"));
        assertEquals("1", labels.get("beta.amd.com/gpu.vram.64G"));
        assertFalse(labels.containsKey("beta.amd.com/gpu.vram"), "on a mixed node the beta form holds only the counts");
        assertEquals("AI", labels.get("beta.amd.com/gpu.family"));
        assertEquals("3", labels.get("beta.amd.com/gpu.family.AI"));
        assertNull(new AmdProfile().labels(Inventories.of("test",
                List.of(amd("Unknown", "7777", 1024L, "gfx9999", 10)), List.of(), List.of())).get("amd.com/gpu.family"),
                "an architecture the kernel table does not list gets no family and no simd-count");
    }

    @Test
    void amdProductNameIsTheBoardsFruNameFirstCleanedAsTheLabellerCleansIt() {
        Gpu fru = Gpu.builder("test").vendor(Vendor.AMD).name("AMD Instinct MI300X").boardName("AMD Instinct MI300X OAM")
                .pciDeviceId("74a1").build();
        Gpu noFru = Gpu.builder("test").vendor(Vendor.AMD).name("AMD Radeon(TM) Graphics").boardName(" ").build();
        SortedMap<String, String> labels = new AmdProfile().labels(Inventories.of("test", List.of(fru, noFru), List.of(), List.of()));
        assertEquals("1", labels.get("amd.com/gpu.product-name.AMD_Instinct_MI300X_OAM"), labels.toString());
        assertEquals("1", labels.get("amd.com/gpu.product-name.AMD_RadeonTM_Graphics"),
                "parentheses dropped, not replaced; a blank FRU name falls back to the marketing name: " + labels);
        String slashed = new AmdProfile().labels(Inventories.of("test", List.of(Gpu.builder("test").vendor(Vendor.AMD)
                .name("Navi 22 [Radeon RX 6700/6700 XT / 6800M]").build()), List.of(), List.of())).get("amd.com/gpu.product-name");
        assertEquals("Navi_22__Radeon_RX_6700_6700_XT___6800M", slashed,
                "a character no label may hold becomes _ (the labeller's label would be refused)");
    }

    @Test
    void amdPartitionKeysFollowTheLabeller() {
        Partitioning spx = new Partitioning("spx", false, null, List.of(), "nps1", List.of("spx", "dpx", "qpx", "cpx"),
                List.of("nps1", "nps4"));
        Partitioning cpx = new Partitioning("cpx", true, null, List.of(), "nps4", List.of("spx", "cpx"), List.of());
        Partitioning modeOnly = new Partitioning("cpx", true, null, List.of());
        SortedMap<String, String> same = partitionLabels(card("0000:05:00.0", spx), card("0000:27:00.0", spx));
        assertEquals(Map.of("amd.com/gpu.compute-memory-partition", "spx_nps1",
                "amd.com/gpu.compute-partitioning-supported", "true", "amd.com/gpu.memory-partitioning-supported", "true"), same);
        SortedMap<String, String> differ = partitionLabels(card("0000:27:00.0", spx), card("0000:05:00.0", cpx));
        assertEquals(Map.of("amd.com/gpu.compute-partitioning-supported", "true",
                "amd.com/gpu.memory-partitioning-supported", "false"), differ,
                "two pairs: no compute-memory-partition; the card at the lowest address (cpx, no memory modes) decides");
        assertEquals(Map.of("amd.com/gpu.compute-memory-partition", "cpx_nps4",
                "amd.com/gpu.compute-partitioning-supported", "true", "amd.com/gpu.memory-partitioning-supported", "false"),
                partitionLabels(card("0000:05:00.0", cpx), card("0000:27:00.0", modeOnly)),
                "a card without its memory mode is not counted, as the labeller skips a card missing either file");
        assertEquals(Map.of("amd.com/gpu.compute-partitioning-supported", "false",
                "amd.com/gpu.memory-partitioning-supported", "false"), partitionLabels(card("0000:05:00.0", null)));
        Gpu vfio = Gpu.builder("test").vendor(Vendor.AMD).pciAddress(PciAddress.of("0000:01:00.0")).kernelDriver("vfio-pci").build();
        assertEquals("true", partitionLabels(vfio, card("0000:05:00.0", spx)).get("amd.com/gpu.compute-partitioning-supported"),
                "a card amdgpu does not drive is not in the labeller's list");
    }

    private static Gpu card(String address, Partitioning partitioning) {
        return Gpu.builder("test").vendor(Vendor.AMD).pciAddress(PciAddress.of(address)).kernelDriver("amdgpu")
                .partitioning(partitioning).build();
    }

    private static SortedMap<String, String> partitionLabels(Gpu... gpus) {
        SortedMap<String, String> labels = new TreeMap<>(new AmdProfile().labels(Inventories.of("test", List.of(gpus), List.of(), List.of())));
        labels.keySet().removeIf(k -> !k.contains("partition"));
        return labels;
    }

    private static Gpu amd(String name, String deviceId, long mib, String arch, int cus) {
        return Gpu.builder("test").vendor(Vendor.AMD).name(name).pciDeviceId(deviceId).memoryMiB(mib)
                .architecture(arch).computeUnits(cus).driverVersion("6.8.5").build();
    }

    private static Map<String, String> map(String... kv) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @org.junit.jupiter.api.Test
    void ourOwnProfileWritesUnderTheChosenPrefixAndRefusesAnInvalidOne() throws Exception {
        var inventory = Fixtures.detect(
                io.gpudetect.source.BundleSource.open(Fixtures.host("tesla-t4_515.105.01_v11")));
        var labels = Profiles.of("gpu-detect", "gpus.example.com").render(inventory);
        assertEquals("1", labels.get("gpus.example.com/gpu.count"));
        assertTrue(labels.keySet().stream().allMatch(k -> k.startsWith("gpus.example.com/")), labels.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Profiles.of("gpu-detect", "Not_A/Domain"));
        assertTrue(e.getMessage().contains("not a DNS subdomain"), e.getMessage());
    }
}

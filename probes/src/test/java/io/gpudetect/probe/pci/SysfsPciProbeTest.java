package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partitioning;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.RecordingSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the probe over small fake {@code /sys} trees laid out with real symbolic links, as the kernel does. */
class SysfsPciProbeTest {

    @TempDir
    Path tmp;

    /** One PCI function under {@code sys/devices/<parent>/<address>}, linked from {@code sys/bus/pci/devices}. */
    private static Path function(Path root, String parent, String address, String cls, String vendor, String device,
                                 String revision, String driver) throws IOException {
        Path dir = root.resolve("sys/devices/" + parent + "/" + address);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), cls + "\n");
        Files.writeString(dir.resolve("vendor"), vendor + "\n");
        Files.writeString(dir.resolve("device"), device + "\n");
        Files.writeString(dir.resolve("subsystem_vendor"), vendor + "\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x0001\n");
        Files.writeString(dir.resolve("revision"), revision + "\n");
        Path links = root.resolve("sys/bus/pci/devices");
        Files.createDirectories(links);
        Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/" + parent + "/" + address));
        if (driver != null) {
            int depth = ("devices/" + parent + "/" + address).split("/").length;
            Files.createSymbolicLink(dir.resolve("driver"), Path.of("../".repeat(depth) + "bus/pci/drivers/" + driver));
        }
        return dir;
    }

    private Path amdHostWithKfd(Path root) throws IOException {
        Path gpu = function(root, "pci0000:80/0000:80:01.1", "0000:83:00.0", "0x038000", "0x1002", "0x740f", "0x02", "amdgpu");
        Files.writeString(gpu.resolve("mem_info_vram_total"), "68702699520\n");
        function(root, "pci0000:00", "0000:00:14.0", "0x0c0330", "0x1022", "0x790b", "0x51", "xhci_hcd");
        Path nodes = root.resolve("sys/devices/virtual/kfd/kfd/topology/nodes");
        Files.createDirectories(nodes.resolve("0"));
        Files.createDirectories(nodes.resolve("1"));
        Files.writeString(nodes.resolve("0/properties"), "cpu_cores_count 64\nsimd_count 0\n");
        Files.writeString(nodes.resolve("1/properties"),
                "cpu_cores_count 0\nsimd_count 416\nsimd_per_cu 4\nlocation_id 33536\ndomain 0\n"
                        + "gfx_target_version 90010\nunique_id 8767355163914547786\n");
        Files.createDirectories(root.resolve("sys/class/kfd"));
        Files.createSymbolicLink(root.resolve("sys/class/kfd/kfd"), Path.of("../../devices/virtual/kfd/kfd"));
        return root;
    }

    private static LiveSource live(Path root) {
        return new LiveSource(root, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }

    @Test
    void readsIdsDriverVramAndKfdTopologyOfAnAmdCard() throws IOException {
        ProbeResult result = new SysfsPciProbe().probe(live(amdHostWithKfd(tmp.resolve("host"))));

        assertEquals(ProbeResult.Outcome.OK, result.outcome(), result.diagnostics().toString());
        assertEquals(1, result.gpus().size(), "the USB controller is no GPU");
        Gpu gpu = result.gpus().get(0);
        assertEquals("0000:83:00.0", gpu.pciAddress().toString());
        assertEquals("740f", gpu.pciDeviceId());
        assertEquals("02", gpu.pciRevision());
        assertEquals("amdgpu", gpu.kernelDriver());
        assertEquals(65520L, gpu.memoryMiB());
        assertEquals("gfx90a", gpu.architecture());
        assertEquals(104, gpu.computeUnits());
        assertEquals("GPU-79abe711f4d0324a", gpu.uuid());
    }

    @Test
    void aRecordingReplaysToTheSameResult() throws Exception {
        Path host = amdHostWithKfd(tmp.resolve("host"));
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(live(host), bundle);

        ProbeResult live = new SysfsPciProbe().probe(recording);
        List<String> problems = recording.finish("test", "test");
        ProbeResult replayed = new SysfsPciProbe().probe(BundleSource.open(bundle));

        assertTrue(problems.isEmpty(), problems.toString());
        assertEquals(live, replayed);
        assertTrue(Files.isSymbolicLink(bundle.resolve("sys/bus/pci/devices/0000:83:00.0")), "links are kept as links");
        assertTrue(Files.isSymbolicLink(bundle.resolve("sys/class/kfd/kfd")));
        assertTrue(Files.notExists(bundle.resolve("sys/devices/pci0000:00/0000:00:14.0/vendor")),
                "only what the probe read is recorded: the USB controller's class, not its ids");
    }

    @Test
    void aCardWithoutDriverIsStillFoundAndSaysSo() throws IOException {
        Path root = tmp.resolve("host");
        function(root, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x030000", "0x10de", "0x2684", "0xa1", null);

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        assertEquals(1, result.gpus().size());
        assertNull(result.gpus().get(0).kernelDriver());
        assertTrue(result.diagnostics().get(0).message().contains("no kernel driver"), result.diagnostics().toString());
    }

    @Test
    void garbageAttributesAreWarningsNamingTheFile() throws IOException {
        Path root = tmp.resolve("host");
        Path dir = function(root, "pci0000:00", "0000:00:02.0", "0x030000", "0x8086", "0xa780", "0x04", "i915");
        Files.writeString(dir.resolve("device"), "\u0000\u0001zz\n");
        Path broken = function(root, "pci0000:00", "0000:00:03.0", "VGA", "0x10de", "0x2684", "0xa1", null);

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        assertEquals(ProbeResult.Outcome.PARTIAL, result.outcome());
        assertEquals(1, result.gpus().size());
        assertNull(result.gpus().get(0).pciDeviceId());
        assertEquals(Boolean.TRUE, result.gpus().get(0).sharedMemory(), "Intel on the root bus is integrated");
        var warnings = Fixtures.lines(result.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("/sys/bus/pci/devices/0000:00:02.0/device:1"), warnings.get(0));
        assertTrue(warnings.get(1).contains("0000:00:03.0/class:1") && warnings.get(1).contains("'VGA'"), warnings.get(1));
        assertTrue(Files.exists(broken));
    }

    @Test
    void badKfdPropertiesLinesAreReportedWithTheirLine() throws IOException {
        Path root = amdHostWithKfd(tmp.resolve("host"));
        Files.writeString(root.resolve("sys/devices/virtual/kfd/kfd/topology/nodes/0/properties"),
                "cpu_cores_count 64\nthis is not a property\n");

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        var warnings = Fixtures.lines(result.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("/sys/class/kfd/kfd/topology/nodes/0/properties:2"), warnings.get(0));
        assertEquals("gfx90a", result.gpus().get(0).architecture(), "the GPU node is still read");
    }

    /** An MI300X with what amdgpu adds to its folder, the DKMS module's version, and its kfd node. */
    private Path mi300xHost(Path root, String compute, String memory) throws IOException {
        Path gpu = function(root, "pci0000:00/0000:00:01.1", "0000:05:00.0", "0x120000", "0x1002", "0x74a1", "0x00", "amdgpu");
        Files.writeString(gpu.resolve("product_name"), "AMD Instinct MI300X OAM\n");
        Files.writeString(gpu.resolve("current_compute_partition"), compute + "\n");
        Files.writeString(gpu.resolve("available_compute_partition"), "SPX, DPX, QPX, CPX\n");
        Files.writeString(gpu.resolve("current_memory_partition"), memory + "\n");
        Files.createDirectories(root.resolve("sys/module/amdgpu"));
        Files.writeString(root.resolve("sys/module/amdgpu/version"), "6.10.5\n");
        return gpu;
    }

    /** kfd nodes as the kernel lists them: one per properties text, numbered from 0. */
    private static void kfdNodes(Path root, String... properties) throws IOException {
        Path nodes = root.resolve("sys/devices/virtual/kfd/kfd/topology/nodes");
        for (int i = 0; i < properties.length; i++) {
            Files.createDirectories(nodes.resolve(String.valueOf(i)));
            Files.writeString(nodes.resolve(i + "/properties"), properties[i]);
        }
        Files.createDirectories(root.resolve("sys/class/kfd"));
        Files.createSymbolicLink(root.resolve("sys/class/kfd/kfd"), Path.of("../../devices/virtual/kfd/kfd"));
    }

    /**
     * A kfd GPU node of an MI300X at function {@code function} of 0000:05:00 ({@code location_id} bus << 8 | device
     * << 3 | function, domain 0), with AMD's documented gfx target and SIMDs per compute unit; unique ids are made up.
     */
    private static String mi300xNode(int simds, int function, String uniqueId) {
        return "cpu_cores_count 0\nsimd_count " + simds + "\nsimd_per_cu 4\nlocation_id " + (1280 + function)
                + "\ndomain 0\ngfx_target_version 90402\nunique_id " + uniqueId + "\nnum_xcc " + simds / 152 + "\n";
    }

    @Test
    void readsTheBoardsFruNamePartitionModesAndTheModulesVersion() throws IOException {
        Path root = tmp.resolve("host");
        mi300xHost(root, "SPX", "NPS1");
        kfdNodes(root, "cpu_cores_count 96\nsimd_count 0\n", mi300xNode(1216, 0, "15188288718613593960"));

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        assertEquals(ProbeResult.Outcome.OK, result.outcome(), result.diagnostics().toString());
        Gpu gpu = result.gpus().get(0);
        assertEquals("AMD Instinct MI300X OAM", gpu.boardName());
        assertEquals("6.10.5", gpu.driverVersion());
        assertEquals(new Partitioning("spx", false, null, List.of(), "nps1", List.of("spx", "dpx", "qpx", "cpx"), List.of()),
                gpu.partitioning(), "no available_memory_partition: the memory mode cannot be switched");
        assertEquals(304, gpu.computeUnits());
        assertEquals("GPU-d2c7a41e5b093f68", gpu.uuid(), "a unique id above 2^63, as real MI300X cards have");
    }

    @Test
    void aRecordingKeepsWhatAmdgpuAddsAndTheModulesVersion() throws Exception {
        Path host = tmp.resolve("host");
        mi300xHost(host, "CPX", "NPS4");
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(live(host), bundle);

        ProbeResult live = new SysfsPciProbe().probe(recording);
        List<String> problems = recording.finish("test", "test");
        ProbeResult replayed = new SysfsPciProbe().probe(BundleSource.open(bundle));

        assertTrue(problems.isEmpty(), problems.toString());
        assertEquals(live, replayed);
        assertEquals("cpx", replayed.gpus().get(0).partitioning().kind());
        assertTrue(Files.isRegularFile(bundle.resolve("sys/module/amdgpu/version")));
        assertTrue(Files.isRegularFile(bundle.resolve("sys/devices/pci0000:00/0000:00:01.1/0000:05:00.0/product_name")));
    }

    @Test
    void aCardWithoutFruOrPartitionsHasNeither() throws IOException {
        Path root = tmp.resolve("host");
        Path gpu = function(root, "pci0000:00/0000:00:01.0", "0000:03:00.0", "0x030000", "0x1002", "0x73df", "0xc1", "amdgpu");
        Files.writeString(gpu.resolve("product_name"), "\n");
        Path other = function(root, "pci0000:00/0000:00:02.0", "0000:04:00.0", "0x120000", "0x1002", "0x74a1", "0x00", "vfio-pci");
        Files.writeString(other.resolve("product_name"), "AMD Instinct MI300X OAM\n");

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        Gpu radeon = result.gpus().get(0);
        assertNull(radeon.boardName(), "kernels before 6.x leave the file empty on cards without a FRU");
        assertNull(radeon.partitioning());
        assertNull(radeon.driverVersion(), "an in-kernel amdgpu has no version file");
        assertNull(result.gpus().get(1).boardName(), "only amdgpu writes these files; another driver's folder is not read for them");
    }

    @Test
    void aCardSplitIntoComputePartitionsIsOneCardWithAllItsComputeUnits() throws IOException {
        Path root = tmp.resolve("host");
        mi300xHost(root, "CPX", "NPS1");
        String id = "15188288718613593960";
        // CPX: eight kfd nodes, at functions 0 to 7 of the card's slot, 38 compute units each; the kernel
        // lists them as nodes 2 to 9 after two CPU nodes, and a directory listing sorts 10 before 2.
        String[] nodes = new String[11];
        nodes[0] = "cpu_cores_count 96\nsimd_count 0\n";
        nodes[1] = nodes[0];
        for (int f = 0; f < 8; f++) {
            nodes[2 + f] = mi300xNode(152, f, id);
        }
        nodes[10] = mi300xNode(152, 1, "5661507212032091633");
        kfdNodes(root, nodes);

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        assertEquals(1, result.gpus().size());
        assertEquals(304, result.gpus().get(0).computeUnits(), "8 partitions of 38");
        assertEquals("gfx942", result.gpus().get(0).architecture());
        var warnings = Fixtures.lines(result.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("kfd GPU node 10 at 0000:05:00.1 matches no display function"), warnings.get(0));
    }

    @Test
    void partitionFilesHoldingSomethingElseAreWarningsNamingTheFile() throws IOException {
        Path root = tmp.resolve("host");
        Path gpu = mi300xHost(root, "spx mode", "NPS1");
        Files.writeString(gpu.resolve("available_compute_partition"), "Not supported\n");
        Files.writeString(gpu.resolve("available_memory_partition"), "NPS1, NPS 4\n");

        ProbeResult result = new SysfsPciProbe().probe(live(root));

        Partitioning p = result.gpus().get(0).partitioning();
        assertNull(p.kind());
        assertNull(p.enabled());
        assertEquals("nps1", p.memoryMode());
        assertEquals(List.of(), p.modes(), "the kernel writes 'Not supported' where no mode can be chosen");
        assertEquals(List.of(), p.memoryModes());
        var warnings = Fixtures.lines(result.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("0000:05:00.0/current_compute_partition:1") && warnings.get(0).contains("'spx mode'"),
                warnings.get(0));
        assertTrue(warnings.get(1).contains("0000:05:00.0/available_memory_partition:1"), warnings.get(1));
    }

    @Test
    void noPciTreeIsAbsent() {
        ProbeResult result = new SysfsPciProbe().probe(live(tmp));
        assertEquals(ProbeResult.Outcome.ABSENT, result.outcome());
    }
}

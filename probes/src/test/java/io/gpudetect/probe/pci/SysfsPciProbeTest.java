package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
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

    @Test
    void noPciTreeIsAbsent() {
        ProbeResult result = new SysfsPciProbe().probe(live(tmp));
        assertEquals(ProbeResult.Outcome.ABSENT, result.outcome());
    }
}

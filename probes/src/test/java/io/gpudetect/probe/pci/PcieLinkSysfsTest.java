package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.probe.ProbeResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PCIe link from sysfs's four link files, and the rule for when it counts as degraded. */
class PcieLinkSysfsTest {

    @TempDir
    Path tmp;

    private Gpu only(Path root) {
        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(root));
        assertEquals(1, r.gpus().size(), r.diagnostics().toString());
        return r.gpus().get(0);
    }

    @Test
    void anIdleGpuDownAtGen1OnAllItsLanesIsNotDegraded() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x10de", "nvidia");
        SysfsTree.link(f, "2.5 GT/s PCIe", "32.0 GT/s PCIe", "16", "16");

        PcieLink link = only(tmp).pcieLink();

        assertEquals(new PcieLink(1, 5, 16, 16), link);
        assertEquals(Boolean.FALSE, link.degraded(), "a lower speed at idle is power saving, not degradation");
    }

    @Test
    void aX16CardTrainedAtX8IsDegraded() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:03.1", "0000:2b:00.0", "0x1002", "amdgpu");
        SysfsTree.link(f, "16.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "16");

        PcieLink link = only(tmp).pcieLink();

        assertEquals(new PcieLink(4, 4, 8, 16), link);
        assertEquals(Boolean.TRUE, link.degraded());
    }

    @Test
    void aRadeonsLinkIsReadAtTheUpstreamPortOfItsOwnSwitch() throws IOException {
        // As nokyan/resources #512 shows a Navi card: upstream port 01:00.0 16.0 of 32.0 GT/s at x8 of x16, the GPU
        // function 03:00.0 32.0 GT/s x16 of x16 (its link to the card's own switch).
        Path up = bridge(tmp, "pci0000:00/0000:00:01.1", "0000:01:00.0");
        bridge(tmp, "pci0000:00/0000:00:01.1/0000:01:00.0", "0000:02:00.0");
        Path gpu = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0", "0000:03:00.0", "0x1002", "amdgpu");
        SysfsTree.link(up, "16.0 GT/s PCIe", "32.0 GT/s PCIe", "8", "16");
        SysfsTree.link(gpu, "32.0 GT/s PCIe", "32.0 GT/s PCIe", "16", "16");

        PcieLink link = only(tmp).pcieLink();

        assertEquals(new PcieLink(4, 5, 8, 16), link);
        assertEquals(Boolean.TRUE, link.degraded());
    }

    /** An AMD PCI bridge (a Radeon card's own switch port), linked from the bus like any function. */
    private static Path bridge(Path root, String parent, String address) throws IOException {
        Path dir = root.resolve("sys/devices/" + parent + "/" + address);
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve("class"), "0x060400\n");
        java.nio.file.Files.writeString(dir.resolve("vendor"), "0x1002\n");
        Path links = root.resolve("sys/bus/pci/devices");
        java.nio.file.Files.createDirectories(links);
        java.nio.file.Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/" + parent + "/" + address));
        return dir;
    }

    @Test
    void readsTheSpeedsOlderKernelsWriteWithoutPcieAndWithoutDecimals() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:02.0", "0000:03:00.0", "0x10de", null);
        SysfsTree.link(f, "8 GT/s", "5.0 GT/s", "4", "16");

        assertEquals(new PcieLink(3, 2, 4, 16), only(tmp).pcieLink());
    }

    @Test
    void anUnknownSpeedAndALinkWidthOf0Or255AreUnknownNotDegraded() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00", "0000:00:06.0", "0x10de", "nvidia");
        SysfsTree.link(f, "Unknown", "Unknown speed", "0", "255");

        Gpu g = only(tmp);

        assertNull(g.pcieLink(), "nothing known about the link: no pcieLink at all");
    }

    @Test
    void aLinkWhoseMaximumWidthIsUnknownHasNoDegradedVerdict() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x10de", "nvidia");
        SysfsTree.link(f, "16.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "255");

        PcieLink link = only(tmp).pcieLink();

        assertEquals(8, link.currentWidth());
        assertNull(link.maxWidth());
        assertNull(link.degraded());
    }

    @Test
    void aFunctionWithoutLinkFilesHasNoLinkAndNoDiagnostic() throws IOException {
        SysfsTree.gpu(tmp, "pci0000:00", "0000:00:02.0", "0x8086", "i915");

        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));

        assertNull(r.gpus().get(0).pcieLink());
        assertTrue(r.diagnostics().stream().noneMatch(d -> d.message().contains("link")), r.diagnostics().toString());
    }

    @Test
    void textThatIsNoSpeedOrWidthIsAWarningNamingTheFile() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x10de", "nvidia");
        SysfsTree.link(f, "fast", "3.0 GT/s PCIe", "sixteen", "16");

        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));

        assertEquals(new PcieLink(null, null, null, 16), r.gpus().get(0).pcieLink());
        List<String> files = r.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING)
                .map(d -> d.file() + ":" + d.line()).toList();
        assertEquals(List.of("/sys/bus/pci/devices/0000:01:00.0/current_link_speed:1",
                "/sys/bus/pci/devices/0000:01:00.0/max_link_speed:1",
                "/sys/bus/pci/devices/0000:01:00.0/current_link_width:1"), files);
    }

    @Test
    void everyRateTheKernelWritesIsAGeneration() {
        List<Diagnostic> notes = new ArrayList<>();
        String[] rates = {"2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe",
                "64.0 GT/s PCIe", "128.0 GT/s PCIe"};
        for (int i = 0; i < rates.length; i++) {
            assertEquals(i + 1, PciFunctionFacts.generationOf(rates[i], "f", "p", notes), rates[i]);
        }
        assertTrue(notes.isEmpty(), notes.toString());
        assertFalse(new PcieLink(1, 5, null, 16).isEmpty());
    }
}

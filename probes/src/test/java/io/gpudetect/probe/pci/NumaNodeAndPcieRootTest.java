package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ProbeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NUMA node ({@code numa_node}) and the PCIe root (where {@code /sys/bus/pci/devices/<address>} leads under
 * {@code /sys/devices}), as Kubernetes' {@code resource.kubernetes.io/numaNode} and {@code pcieRoot} name them.
 */
class NumaNodeAndPcieRootTest {

    @TempDir
    Path tmp;

    private List<Gpu> gpus(ProbeResult r) {
        return r.gpus().stream().sorted(Comparator.comparing(g -> g.pciAddress().toString())).toList();
    }

    @Test
    void twoGpusOnTwoSocketsBehindBridgesHaveTheirNodeAndRoot() throws IOException {
        Path a = SysfsTree.gpu(tmp, "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0", "0000:18:00.0", "0x10de", "nvidia");
        Path b = SysfsTree.gpu(tmp, "pci0000:97/0000:97:01.0", "0000:98:00.0", "0x10de", "nvidia");
        Files.writeString(a.resolve("numa_node"), "0\n");
        Files.writeString(b.resolve("numa_node"), "1\n");

        List<Gpu> gpus = gpus(new SysfsPciProbe().probe(SysfsTree.live(tmp)));

        assertEquals("pci0000:15", gpus.get(0).pcieRoot(), "the root complex, not the switch ports below it");
        assertEquals(0, gpus.get(0).numaNode());
        assertEquals("pci0000:97", gpus.get(1).pcieRoot());
        assertEquals(1, gpus.get(1).numaNode());
        assertEquals("sysfs-pci", gpus.get(1).sources().get("numaNode"));
        assertEquals("sysfs-pci", gpus.get(1).sources().get("pcieRoot"));
    }

    @Test
    void aHostWithoutNumaSaysMinusOneWhichIsNoNode() throws IOException {
        Path a = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x1002", "amdgpu");
        Files.writeString(a.resolve("numa_node"), "-1\n");

        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));

        assertNull(r.gpus().get(0).numaNode());
        assertEquals("pci0000:00", r.gpus().get(0).pcieRoot());
        assertEquals(List.of(), r.diagnostics().stream().filter(d -> d.severity() != Diagnostic.Severity.INFO).toList());
    }

    @Test
    void aNumaNodeThatIsNoNumberIsAWarningNamingTheFile() throws IOException {
        Path a = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x10de", "nvidia");
        Files.writeString(a.resolve("numa_node"), "node0\n");

        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));

        assertNull(r.gpus().get(0).numaNode());
        Diagnostic d = r.diagnostics().stream().filter(x -> x.severity() == Diagnostic.Severity.WARNING).findFirst().orElseThrow();
        assertEquals("/sys/bus/pci/devices/0000:01:00.0/numa_node", d.file());
        assertEquals(1, d.line());
    }

    @Test
    void theRootIsTheFirstFolderUnderDevicesAndOnHyperVTheFirstPciRootFolder() {
        assertEquals("pci0000:00", PciFunctionFacts.pcieRoot("../../../devices/pci0000:00/0000:00:06.0"));
        // Behind Intel VMD the device's own domain (10000) hangs below the host's root complex, which is the root
        // Kubernetes' helper gives, and the one we give.
        assertEquals("pci0000:d7", PciFunctionFacts.pcieRoot(
                "../../../devices/pci0000:d7/0000:d7:05.5/pci10000:e0/10000:e0:00.0/10000:e1:00.0"));
        // An Azure (Hyper-V) guest: the GPU's root complex sits below the VMBus, under ACPI folders.
        assertEquals("pci0001:00", PciFunctionFacts.pcieRoot("../../../devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A03:00/"
                + "device:07/VMBUS:01/47505500-0001-0000-3130-444531303244/pci0001:00/0001:00:00.0"));
        assertNull(PciFunctionFacts.pcieRoot("../../../devices/platform/soc/gpu"), "no PCI root on the path");
    }
}

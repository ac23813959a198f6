package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.RecordingSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu-detect record} keeps the link, NUMA and hwmon files the probe reads, and a replay reads them back. */
class PcieLinkNumaPowerRecordingTest {

    @TempDir
    Path tmp;

    @Test
    void aRecordingHoldsTheLinkNumaAndPowerFilesAndReplaysToTheSameGpu() throws Exception {
        Path host = tmp.resolve("host");
        Path f = SysfsTree.gpu(host, "pci0000:40/0000:40:01.1", "0000:43:00.0", "0x1002", "amdgpu");
        SysfsTree.link(f, "2.5 GT/s PCIe", "16.0 GT/s PCIe", "8", "16");
        Files.writeString(f.resolve("numa_node"), "1\n");
        Path h = f.resolve("hwmon/hwmon3");
        Files.createDirectories(h);
        Files.writeString(h.resolve("power1_cap"), "300000000\n");
        Files.writeString(h.resolve("power1_cap_max"), "300000000\n");
        Files.writeString(h.resolve("power1_cap_min"), "150000000\n");
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(SysfsTree.live(host), bundle);

        ProbeResult live = new SysfsPciProbe().probe(recording);
        List<String> problems = recording.finish("test", "test");
        ProbeResult replayed = new SysfsPciProbe().probe(BundleSource.open(bundle));

        assertTrue(problems.isEmpty(), problems.toString());
        Gpu g = live.gpus().get(0);
        assertEquals(new PcieLink(1, 4, 8, 16), g.pcieLink());
        assertEquals(1, g.numaNode());
        assertEquals("pci0000:40", g.pcieRoot());
        assertEquals(300.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(150.0, 300.0, null), g.powerLimits());
        assertEquals(live, replayed);
        Path recorded = bundle.resolve("sys/devices/pci0000:40/0000:40:01.1/0000:43:00.0");
        for (String file : List.of("current_link_speed", "max_link_speed", "current_link_width", "max_link_width",
                "numa_node", "hwmon/hwmon3/power1_cap", "hwmon/hwmon3/power1_cap_min", "hwmon/hwmon3/power1_cap_max")) {
            assertTrue(Files.isRegularFile(recorded.resolve(file)), file + " is in the bundle");
        }
        assertEquals(Path.of("../../../devices/pci0000:40/0000:40:01.1/0000:43:00.0"),
                Files.readSymbolicLink(bundle.resolve("sys/bus/pci/devices/0000:43:00.0")), "the link that gives the root");
    }
}

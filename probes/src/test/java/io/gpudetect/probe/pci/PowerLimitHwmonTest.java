package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.probe.ProbeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The power cap, its range and default from the hwmon folder amdgpu, i915 and xe write (microwatts). */
class PowerLimitHwmonTest {

    @TempDir
    Path tmp;

    private static Path hwmon(Path function, String name) throws IOException {
        Path h = function.resolve("hwmon/" + name);
        Files.createDirectories(h);
        return h;
    }

    private Gpu only() {
        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));
        assertEquals(1, r.gpus().size(), r.diagnostics().toString());
        return r.gpus().get(0);
    }

    @Test
    void amdgpuWritesTheCapItsRangeAndDefault() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:03.1", "0000:2d:00.0", "0x1002", "amdgpu");
        Path h = hwmon(f, "hwmon4");
        Files.writeString(h.resolve("name"), "amdgpu\n");
        Files.writeString(h.resolve("power1_cap"), "255000000\n");
        Files.writeString(h.resolve("power1_cap_min"), "0\n");
        Files.writeString(h.resolve("power1_cap_max"), "281000000\n");
        Files.writeString(h.resolve("power1_cap_default"), "255000000\n");
        Files.writeString(f.resolve("vbios_version"), "113-D4120100-100\n");

        Gpu g = only();

        assertEquals(255.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(null, 281.0, 255.0), g.powerLimits(), "a minimum of 0 means none");
        assertEquals("sysfs-pci", g.sources().get("powerLimits"));
        assertEquals("113-D4120100-100", g.vbiosVersion());
    }

    @Test
    void i915WritesTheCapAsPower1MaxAndItsDefaultAsRatedMax() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", "0000:03:00.0", "0x8086", "i915");
        Path h = hwmon(f, "hwmon2");
        Files.writeString(h.resolve("power1_max"), "190000000\n");
        Files.writeString(h.resolve("power1_rated_max"), "225000000\n");

        Gpu g = only();

        assertEquals(190.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(null, null, 225.0), g.powerLimits());
    }

    @Test
    void noHwmonIsReadForTheNvidiaDriverAndNoneIsNoPowerLimit() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:01.0", "0000:01:00.0", "0x10de", "nvidia");
        Files.writeString(hwmon(f, "hwmon9").resolve("power1_cap"), "450000000\n");
        assertNull(only().powerLimitWatts(), "the nvidia driver writes no hwmon: a folder there is not its cap");
    }

    @Test
    void aCapThatIsNoNumberIsAWarningNamingTheFile() throws IOException {
        Path f = SysfsTree.gpu(tmp, "pci0000:00/0000:00:03.1", "0000:2d:00.0", "0x1002", "amdgpu");
        Files.writeString(hwmon(f, "hwmon4").resolve("power1_cap"), "255 W\n");

        ProbeResult r = new SysfsPciProbe().probe(SysfsTree.live(tmp));

        assertNull(r.gpus().get(0).powerLimitWatts());
        Diagnostic d = r.diagnostics().stream().filter(x -> x.severity() == Diagnostic.Severity.WARNING).findFirst().orElseThrow();
        assertEquals("/sys/bus/pci/devices/0000:2d:00.0/hwmon/hwmon4/power1_cap", d.file());
    }
}

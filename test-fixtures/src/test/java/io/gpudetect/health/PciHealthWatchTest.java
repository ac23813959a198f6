package io.gpudetect.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.livehost.FakeHost;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.pci.SysfsPciProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health sysfs shows for AMD and Intel GPUs on a fake host: amdgpu's RAS counts under the function's
 * {@code ras/} folder, and a function that no longer answers on the bus (config space all ones).
 */
class PciHealthWatchTest {

    @TempDir
    Path dir;

    private static final String MI300X = "0000:05:00.0";
    private static final String ARC = "0000:0b:00.0";

    private FakeHost host() throws Exception {
        return new FakeHost(dir)
                .function(MI300X, "1002", "74a1", "0x120000", "00", "amdgpu")
                .function(ARC, "8086", "56a0", "0x030000", "08", "i915");
    }

    private Path folder(String address) {
        return dir.resolve("host/sys/devices/pci0000:00").resolve(address);
    }

    private void ras(String file, String text) throws Exception {
        Path ras = Files.createDirectories(folder(MI300X).resolve("ras"));
        Files.writeString(ras.resolve(file), text);
    }

    private Gpu gpu(FakeHost host, String address) {
        ProbeResult r = new SysfsPciProbe().probe(host.source());
        return r.gpus().stream().filter(g -> g.pciAddress().toString().equals(address)).findFirst().orElseThrow();
    }

    @Test
    void rasCountsBelowTheThresholdAreOk() throws Exception {
        FakeHost host = host();
        ras("umc_err_count", "ue: 0\nce: 3\n");
        ras("gfx_err_count", "ue: 0\nce: 0\n");
        ras("features", "feature mask: 0x3fbfffff\n");

        Gpu g = gpu(host, MI300X);
        assertEquals(Health.Status.OK, g.health().status());
        assertNull(gpu(host, ARC).health(), "no ras folder and a function that answers: nothing known");
    }

    @Test
    void anUncorrectableRasErrorFailsTheGpu() throws Exception {
        FakeHost host = host();
        ras("umc_err_count", "ue: 2\nce: 150\n");
        ras("sdma_err_count", "ue: 0\nce: 0\n");

        Health h = gpu(host, MI300X).health();
        assertEquals(Health.Status.FAILED, h.status());
        assertEquals(List.of(HealthReason.RAS_UNCORRECTABLE, HealthReason.CORRECTABLE_ERRORS), h.reasons());
        assertEquals(List.of("2 uncorrectable RAS errors since the driver loaded (umc 2)",
                "150 correctable RAS errors since the driver loaded (degraded from 100)"), h.problems());
    }

    @Test
    void correctableErrorsPastTheThresholdDegrade() throws Exception {
        FakeHost host = host();
        ras("umc_err_count", "ue: 0\nce: 60\n");
        ras("gfx_err_count", "ue: 0\nce: 40\n");

        Health h = gpu(host, MI300X).health();
        assertEquals(Health.Status.DEGRADED, h.status());
        assertEquals(List.of(HealthReason.CORRECTABLE_ERRORS), h.reasons());
    }

    @Test
    void aCountFileOfAnotherShapeIsNamed() throws Exception {
        FakeHost host = host();
        ras("umc_err_count", "garbage\n");

        ProbeResult r = new SysfsPciProbe().probe(host.source());
        assertEquals(1, r.diagnostics().stream().filter(d -> d.file().endsWith("ras/umc_err_count")
                && d.message().equals("expected 'ue: N' and 'ce: N' lines, found 'garbage'")).count());
    }

    /** An Intel or AMD GPU that fell off the bus: the kernel keeps its folder, its config space reads all ones. */
    @Test
    void aFunctionThatNoLongerAnswersIsLost() throws Exception {
        FakeHost host = host();
        Files.write(folder(ARC).resolve("config"), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        Files.write(folder(MI300X).resolve("config"), new byte[] {0x02, 0x10, (byte) 0xa1, 0x74});

        Health arc = gpu(host, ARC).health();
        assertEquals(Health.Status.LOST, arc.status());
        assertEquals(List.of(HealthReason.GPU_LOST), arc.reasons());
        assertNull(gpu(host, MI300X).health(), "a function that answers and has no RAS folder");
    }
}

package io.gpudetect.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.livehost.FakeHost;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.nvml.NvmlGpus;
import io.gpudetect.probe.nvml.NvmlSnapshotJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pass-time health checks through the real JNA bindings and the stand-in NVML: retired pages, remapped rows,
 * ECC counts since the driver loaded, clock event reasons, and an Xid 79 injected through the stand-in's control file.
 */
class NvmlHealthChecksTest {

    @TempDir
    Path dir;

    private FakeHost host;

    private List<Gpu> gpus(String scenario) throws Exception {
        host = new FakeHost(dir).nvml(scenario);
        NvmlSnapshot s = new JnaNvmlScope(Optional.of(host.driverRoot()), JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();
        // Through the bundle format too: what a recording keeps, a replay reads back the same.
        assertEquals(s, NvmlSnapshotJson.read(NvmlSnapshotJson.write(s)));
        ProbeResult r = NvmlGpus.interpret(s, "nvml.json");
        return r.gpus();
    }

    @Test
    void eachCheckLeadsToItsState() throws Exception {
        List<Gpu> g = gpus("health");

        assertEquals(5, g.size());
        assertEquals(Health.Status.OK, g.get(0).health().status());
        assertEquals(List.of(), g.get(0).health().reasons());
        assertEquals(Health.Status.DEGRADED, g.get(1).health().status());
        assertEquals(List.of(HealthReason.ROWS_PENDING_REMAP), g.get(1).health().reasons());
        assertEquals(Health.Status.FAILED, g.get(2).health().status());
        assertEquals(List.of(HealthReason.UNCORRECTABLE_ECC, HealthReason.ROW_REMAP_FAILURE), g.get(2).health().reasons());
        assertEquals(List.of("4 uncorrected ECC errors since the driver loaded (volatile)",
                "a row could not be remapped (1 rows remapped for uncorrectable errors, 0 for correctable)"),
                g.get(2).health().problems());
        assertEquals(List.of(HealthReason.HARDWARE_SLOWDOWN), g.get(3).health().reasons());
        assertEquals(List.of("clocks held down by a hardware slowdown (HwSlowdown, HwThermalSlowdown)"),
                g.get(3).health().problems());
        assertEquals(Health.Status.OK, g.get(4).health().status(), "a power cap and software thermal slowdown are no fault");
    }

    @Test
    void aVoltaGpuRetiresPages() throws Exception {
        Gpu g = gpus("v100-pages").get(0);

        assertEquals(List.of(HealthReason.PAGES_PENDING_RETIREMENT), g.health().reasons());
        assertEquals(Health.Status.DEGRADED, g.health().status());
    }

    /** An Xid 79 takes the GPU off the bus until a driver reload; the PCI address survives, so it is named. */
    @Test
    void aGpuFallenOffTheBusIsLostUntilTheDriverReloads() throws Exception {
        gpus("health");
        Path control = host.driverRoot().resolve("usr/lib64/fake-nvml-events");
        Files.writeString(control, "xid 0 79\n");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(host.driverRoot()), JnaNvmlScope.Session.PER_SNAPSHOT);
        Gpu lost = NvmlGpus.interpret(scope.snapshot(), "nvml.json").gpus().get(0);
        assertEquals(Health.Status.LOST, lost.health().status());
        assertEquals(List.of(HealthReason.GPU_LOST), lost.health().reasons());
        assertEquals("0000:19:00.0", lost.pciAddress().toString());

        Files.writeString(control, "xid 0 79\nreload\n");
        Gpu back = NvmlGpus.interpret(scope.snapshot(), "nvml.json").gpus().get(0);
        assertEquals(Health.Status.OK, back.health().status());
        assertTrue(back.health().problems().isEmpty(), back.health().problems()::toString);
    }
}

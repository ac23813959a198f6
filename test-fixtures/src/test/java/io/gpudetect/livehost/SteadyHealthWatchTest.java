package io.gpudetect.livehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's steady passes notice a health change without a full detection's tools: an uncorrectable ECC error
 * NVML counts (the pulse compares the health calls), and an amdgpu RAS count that moved (the fingerprint reads them).
 */
class SteadyHealthWatchTest {

    @TempDir
    Path dir;

    /** 2 Radeon VII whose rocm-smi prints a real recording (no amd-smi), so that a pass is complete and kept. */
    private FakeHost twoRadeonVii() throws Exception {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .toolPrinting("rocm-smi", io.gpudetect.testing.Fixtures.sharedOrSkip(
                        "hosts/rocm-smi_2x-vega20_radeon-vii_showallinfo/rocm-smi.json"))
                .function("0000:03:00.0", "1002", "66af", "0x030000", "c1", "amdgpu")
                .function("0000:06:00.0", "1002", "66af", "0x030000", "c1", "amdgpu");
        Files.delete(host.bin.resolve("amd-smi"));
        return host;
    }

    private SteadyStateDetector detector(FakeHost host) {
        ProbeSettings settings = ProbeSettings.defaults().withDriverRoot(host.driverRoot())
                .withNvmlSession(JnaNvmlScope.Session.HELD);
        return new SteadyStateDetector(Probes.defaults(settings), host.source(),
                io.gpudetect.testing.SharedData.replayTables(), Duration.ofHours(1), Clock.systemUTC());
    }

    @Test
    void anEccErrorNvmlCountsIsSeenAtTheNextSteadyPass() throws Exception {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .function("0000:18:00.0", "10de", "2330", "0x030200", "a1", "nvidia").nvml("h100");
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertEquals(Health.Status.OK, first.gpus().get(0).health().status());
        assertSame(first, detector.detect(), "steady");

        Files.writeString(host.driverRoot().resolve("usr/lib64/fake-nvml-events"), "dbe 0\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Inventory after = detector.detect();
        assertNotSame(first, after);
        assertEquals(2, detector.fullDetections());
        assertEquals(Health.Status.FAILED, after.gpus().get(0).health().status());
        assertEquals(List.of(HealthReason.UNCORRECTABLE_ECC), after.gpus().get(0).health().reasons());
        assertSame(after, detector.detect(), "and steady again");
    }

    @Test
    void aRasCountThatMovedIsSeenAtTheNextSteadyPass() throws Exception {
        FakeHost host = twoRadeonVii();
        Path ras = Files.createDirectories(host.root.resolve("sys/devices/pci0000:00/0000:03:00.0/ras"));
        Files.writeString(ras.resolve("umc_err_count"), "ue: 0\nce: 0\n");
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertEquals(Health.Status.OK, first.gpus().get(0).health().status(), first.gpus().toString());
        assertSame(first, detector.detect(), "steady");

        Files.writeString(ras.resolve("umc_err_count"), "ue: 1\nce: 0\n");
        Inventory after = detector.detect();
        assertNotSame(first, after);
        assertEquals(Health.Status.FAILED, after.gpus().get(0).health().status());
        assertEquals(List.of(HealthReason.RAS_UNCORRECTABLE), after.gpus().get(0).health().reasons());
        assertEquals(2, detector.fullDetections());
    }

    @Test
    void aRasFolderThatAppearsAndAConfigSpaceReadingAllOnesAreSeenAtTheNextSteadyPass() throws Exception {
        // Neither card has a ras/ folder at first (the fingerprint lists it without asking whether it is there, and an
        // absent folder lists as nothing); one appears with an uncorrectable count (amdgpu reloaded with RAS on), then
        // the other card's config space reads all ones while its folder stays (fallen off the bus, not yet removed).
        FakeHost host = twoRadeonVii();
        Path second = host.root.resolve("sys/devices/pci0000:00/0000:06:00.0");
        Files.write(second.resolve("config"), new byte[] {0x02, 0x10, (byte) 0xaf, 0x66});
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertSame(first, detector.detect(), "steady");

        Path ras = Files.createDirectories(host.root.resolve("sys/devices/pci0000:00/0000:03:00.0/ras"));
        Files.writeString(ras.resolve("umc_err_count"), "ue: 1\nce: 0\n");
        Inventory withRas = detector.detect();
        assertNotSame(first, withRas);
        assertEquals(2, detector.fullDetections());
        assertEquals(List.of(HealthReason.RAS_UNCORRECTABLE), withRas.gpus().get(0).health().reasons());
        assertSame(withRas, detector.detect(), "and steady again");

        Files.write(second.resolve("config"), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        Inventory lost = detector.detect();
        assertNotSame(withRas, lost);
        assertEquals(3, detector.fullDetections());
        assertEquals(List.of(HealthReason.GPU_LOST), lost.gpus().get(1).health().reasons());
    }
}

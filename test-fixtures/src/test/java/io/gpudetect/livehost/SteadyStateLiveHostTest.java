package io.gpudetect.livehost;

import io.gpudetect.testing.Fixtures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's passes on a live (fake) host: after a complete pass, a pass whose host looks as it did runs no
 * tool and returns the same inventory; a change on the bus, in a bound driver, in a module's version or in what
 * NVML says, or the refresh falling due, brings back a full detection.
 */
class SteadyStateLiveHostTest {

    private static final Duration REFRESH = Duration.ofHours(1);

    @TempDir
    Path dir;

    /** A clock the test moves. */
    private static final class TestClock extends Clock {
        private Instant now = Instant.parse("2026-11-23T00:00:00Z");

        @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(java.time.ZoneId zone) { return this; }
        @Override public Instant instant() { return now; }

        void advance(Duration d) {
            now = now.plus(d);
        }
    }

    private final TestClock clock = new TestClock();

    private SteadyStateDetector detector(FakeHost host) {
        ProbeSettings settings = ProbeSettings.defaults().withDriverRoot(host.driverRoot());
        return new SteadyStateDetector(Probes.defaults(settings), host.source(), io.gpudetect.testing.SharedData.replayTables(), REFRESH, clock);
    }

    /** 2 Radeon VII whose rocm-smi prints a real recording. */
    private FakeHost amdHost() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .toolPrinting("rocm-smi", Fixtures.sharedOrSkip("hosts/rocm-smi_2x-vega20_radeon-vii_showallinfo/rocm-smi.json"))
                .function("0000:03:00.0", "1002", "66af", "0x030000", "c1", "amdgpu")
                .function("0000:06:00.0", "1002", "66af", "0x030000", "c1", "amdgpu");
        Files.delete(host.bin.resolve("amd-smi"));
        Files.createDirectories(host.root.resolve("sys/module/amdgpu"));
        Files.writeString(host.root.resolve("sys/module/amdgpu/version"), "6.3.6\n");
        return host;
    }

    @Test
    void anUnchangedHostRunsNoToolAfterTheFirstPass() throws IOException {
        FakeHost host = amdHost();
        SteadyStateDetector detector = detector(host);

        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertEquals(List.of("rocm-smi --showallinfo --json"), host.calls());
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMinutes(1));
            assertSame(first, detector.detect());
        }
        assertEquals(1, host.calls().size(), "no tool ran again: " + host.calls());
        assertEquals(1, detector.fullDetections());
    }

    @Test
    void aChangeOnTheBusInADriverOrInAModuleVersionDetectsInFull() throws IOException {
        FakeHost host = amdHost();
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();

        // The second card is unbound from amdgpu (passed through to a VM): vfio-pci takes it.
        Path driver = host.root.resolve("sys/devices/pci0000:00/0000:06:00.0/driver");
        Files.delete(driver);
        Files.createDirectories(host.root.resolve("sys/bus/pci/drivers/vfio-pci"));
        Files.createSymbolicLink(driver, driver.getParent().relativize(host.root.resolve("sys/bus/pci/drivers/vfio-pci")));
        Inventory unbound = detector.detect();
        assertNotSame(first, unbound);
        assertEquals(2, detector.fullDetections());
        assertEquals("vfio-pci", unbound.gpus().get(1).kernelDriver());
        assertSame(unbound, detector.detect(), "and steady again");

        Files.writeString(host.root.resolve("sys/module/amdgpu/version"), "6.8.5\n");
        detector.detect();
        assertEquals(3, detector.fullDetections(), "a driver upgraded in place");

        // The first card falls off the bus.
        Files.delete(host.root.resolve("sys/bus/pci/devices/0000:03:00.0"));
        Inventory fallen = detector.detect();
        assertEquals(4, detector.fullDetections());
        assertEquals(1, fallen.gpus().size());
        assertEquals("vfio-pci", fallen.gpus().get(0).kernelDriver());
        assertEquals(3, host.calls().size(), "rocm-smi in each full detection while a GPU is bound to amdgpu, and not in "
                + "the last, where none is: " + host.calls());
    }

    /**
     * Binds the function at {@code address} to {@code driver} (null: unbinds it) as the kernel does: its {@code driver}
     * link and the driver folder's link named by its address move together.
     */
    private static void bind(FakeHost host, String address, String driver) throws IOException {
        Path function = host.root.resolve("sys/devices/pci0000:00").resolve(address);
        Path link = function.resolve("driver");
        if (Files.isSymbolicLink(link)) {
            Path old = link.getParent().resolve(Files.readSymbolicLink(link)).normalize();
            Files.deleteIfExists(old.resolve(address));
            Files.delete(link);
        }
        if (driver != null) {
            Path folder = Files.createDirectories(host.root.resolve("sys/bus/pci/drivers").resolve(driver));
            Files.createSymbolicLink(link, function.relativize(folder));
            Files.createSymbolicLink(folder.resolve(address), folder.relativize(function));
        }
    }

    @Test
    void aGpuListedInItsDriversFolderIsBoundThereAndOneThatLeavesItDetectsInFull() throws IOException {
        // The kernel's driver folders link their functions: the steady pass reads those instead of each GPU's link.
        FakeHost host = amdHost();
        bind(host, "0000:03:00.0", "amdgpu");
        bind(host, "0000:06:00.0", "amdgpu");
        Files.writeString(host.root.resolve("sys/bus/pci/drivers/amdgpu/new_id"), "");
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofMinutes(1));
            assertSame(first, detector.detect());
        }
        assertEquals(1, detector.fullDetections());

        // The second card passed through to a VM: amdgpu's folder still lists the first one.
        bind(host, "0000:06:00.0", "vfio-pci");
        Inventory rebound = detector.detect();
        assertEquals(2, detector.fullDetections(), "a GPU that left its driver's folder is a change");
        assertEquals(List.of("amdgpu", "vfio-pci"), rebound.gpus().stream().map(Gpu::kernelDriver).toList());
        assertSame(rebound, detector.detect(), "steady on two drivers");
        assertEquals(2, detector.fullDetections());

        bind(host, "0000:06:00.0", null);
        Inventory unbound = detector.detect();
        assertEquals(3, detector.fullDetections(), "unbound: in no driver's folder, and no link");
        assertNull(unbound.gpus().get(1).kernelDriver());
        assertSame(unbound, detector.detect());
        bind(host, "0000:06:00.0", "amdgpu");
        detector.detect();
        assertEquals(4, detector.fullDetections(), "bound again");
    }

    @Test
    void aModuleThatChangesDuringTheDetectionIsNotTakenAsSteady() throws IOException {
        FakeHost host = amdHost();
        Path version = host.root.resolve("sys/module/amdgpu/version");
        // rocm-smi runs in the middle of the full detection; the driver is upgraded in place meanwhile.
        host.tool("rocm-smi", "echo 6.8.5 > '" + version + "'; cat '"
                + Fixtures.sharedOrSkip("hosts/rocm-smi_2x-vega20_radeon-vii_showallinfo/rocm-smi.json").toAbsolutePath() + "'");
        SteadyStateDetector detector = detector(host);

        detector.detect();
        detector.detect();
        assertEquals(2, detector.fullDetections(), "what the first detection saw predates the module it ended with");
        detector.detect();
        assertEquals(2, detector.fullDetections(), "the second saw the host as it stayed: steady from there");
    }

    /** The RDMA fabric is read at a full detection only: a port going down is seen at the next one, not in between. */
    @Test
    void theFabricIsReadAtAFullDetectionAndNeverInTheSteadyPass() throws IOException {
        FakeHost host = amdHost();
        Path ib = new io.gpudetect.probe.fabric.FabricTree(host.root).mlx5("pci0000:00/0000:00:02.0", "0000:07:00.0", -1,
                "mlx5_0", "InfiniBand", "4: ACTIVE", "400 Gb/sec (4X NDR)");
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertEquals("active", first.fabric().devices().get(0).ports().get(0).state());

        Files.writeString(ib.resolve("ports/1/state"), "1: DOWN\n");
        clock.advance(Duration.ofMinutes(1));
        assertSame(first, detector.detect(), "the steady pass reads no fabric file");
        assertEquals(1, detector.fullDetections());

        clock.advance(REFRESH);
        Inventory refreshed = detector.detect();
        assertEquals(2, detector.fullDetections());
        assertEquals("down", refreshed.fabric().devices().get(0).ports().get(0).state());
    }

    @Test
    void theRefreshFallingDueDetectsInFull() throws IOException {
        FakeHost host = amdHost();
        SteadyStateDetector detector = detector(host);
        detector.detect();
        clock.advance(REFRESH.minusSeconds(1));
        detector.detect();
        assertEquals(1, detector.fullDetections());
        clock.advance(Duration.ofSeconds(1));
        detector.detect();
        assertEquals(2, detector.fullDetections());
    }

    @Test
    void whatNvmlSaysIsReadEveryPassAndAChangeThereDetectsInFull() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu().nvml("h100")
                .function("0000:18:00.0", "10de", "2330", "0x030200", "a1", "nvidia");
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertSame(first, detector.detect());
        assertEquals(1, detector.fullDetections());

        // The driver stops answering (an RM/NVML mismatch after a half-done upgrade): NVML's answer changes.
        Files.writeString(host.driverRoot().resolve("usr/lib64/fake-nvml-scenario"), "init-error-18\n");
        Inventory broken = detector.detect();
        assertEquals(2, detector.fullDetections());
        assertFalse(broken.complete());
        detector.detect();
        assertEquals(3, detector.fullDetections(), "after an incomplete pass every pass detects in full");
        assertEquals(List.of("nvidia-smi -q -x", "nvidia-smi -q -x"), host.calls());
    }
}

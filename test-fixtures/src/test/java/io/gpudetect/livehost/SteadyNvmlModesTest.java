package io.gpudetect.livehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.labels.GpuDetectProfile;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.model.Gpu;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's steady passes read the MIG and ECC modes of one GPU a pass (NVML held), the others as the last read
 * found them: a mode that changes with nothing else NVML shows changing reaches the inventory and the labels within as
 * many passes as the host has GPUs (docs/labels.md, "How soon a mode change is seen").
 */
class SteadyNvmlModesTest {

    /** The buses of the stand-in's 8xa100-mig scenario, in NVML's index order. */
    private static final String[] BUSES = {"07", "0f", "47", "4e", "87", "90", "b7", "bd"};

    @TempDir
    Path dir;

    private FakeHost host() throws Exception {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu().nvml("8xa100-mig");
        for (String bus : BUSES) {
            host.function("0000:" + bus + ":00.0", "10de", "20b2", "0x030200", "a1", "nvidia");
        }
        return host;
    }

    private static SteadyStateDetector detector(FakeHost host) {
        ProbeSettings settings = ProbeSettings.defaults().withDriverRoot(host.driverRoot())
                .withNvmlSession(JnaNvmlScope.Session.HELD);
        return new SteadyStateDetector(Probes.defaults(settings), host.source(),
                io.gpudetect.testing.SharedData.replayTables(), Duration.ofHours(1), Clock.systemUTC());
    }

    private static Gpu gpu(Inventory inventory, int index) {
        String address = "0000:" + BUSES[index] + ":00.0";
        return inventory.gpus().stream().filter(g -> address.equals(String.valueOf(g.pciAddress()))).findFirst()
                .orElseThrow(() -> new AssertionError("no GPU at " + address + " in " + inventory.gpus()));
    }

    private static String migEnabledCount(Inventory inventory) {
        return LabelProfiles.of(new GpuDetectProfile()).render(inventory).get(GpuDetectProfile.PREFIX + "/gpu.mig.enabled.count");
    }

    @Test
    void aMigModeThatTakesEffectWithNothingElseChangingReachesTheLabelsWithinEightPasses() throws Exception {
        FakeHost host = host();
        SteadyStateDetector detector = detector(host);
        Inventory first = detector.detect();
        assertTrue(first.complete(), first.gaps().toString());
        assertEquals(Boolean.FALSE, gpu(first, 2).partitioning().enabled());
        assertEquals(Boolean.TRUE, gpu(first, 2).partitioning().pendingEnabled(), "MIG set, pending a reset");
        assertEquals("2", migEnabledCount(first));
        for (int pass = 0; pass < 5; pass++) {
            assertSame(first, detector.detect(), "steady");
        }
        assertEquals(1, detector.fullDetections());

        // GPU 2's pending MIG mode takes effect, and nothing else NVML shows changes.
        Files.writeString(host.driverRoot().resolve("usr/lib64/fake-nvml-events"), "mig 2 1 1\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        int passes = 0;
        Inventory now;
        do {
            now = detector.detect();
            passes++;
        } while (now == first && passes < 20);
        assertTrue(passes <= 8, "seen at pass " + passes + ", not within 8 (one a GPU)");
        assertEquals(2, detector.fullDetections(), "the pulse that saw it started a full detection");
        assertEquals(Boolean.TRUE, gpu(now, 2).partitioning().enabled());
        assertEquals("3", migEnabledCount(now));
        System.out.println("STEADY-MODES MIG mode of GPU 2 seen at steady pass " + passes + " of at most 8");
        for (int pass = 0; pass < 8; pass++) {
            assertSame(now, detector.detect(), "and steady again");
        }
    }
}

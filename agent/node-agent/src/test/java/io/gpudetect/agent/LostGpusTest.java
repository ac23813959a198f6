package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.Observation;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lost-GPU memory alone, for every vendor: which GPU reads lost, which is the same GPU, when it is forgotten. */
class LostGpusTest {

    private final StringWriter log = new StringWriter();
    private final LostGpus lost = new LostGpus(new AgentLog(new PrintWriter(log, true),
            new MutableClock(Instant.parse("2026-01-01T00:00:00Z"))));

    private static Gpu h100(String address, String uuid) {
        return Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").memoryGi(80)
                .pciAddress(PciAddress.parse(address).orElseThrow()).uuid(uuid).kernelDriver("nvidia")
                .health(Health.ok()).build();
    }

    private static Observation seen(List<Gpu> gpus, List<String> gaps) {
        return new Observation(new Inventory("test", gpus, List.of(), List.of(), null, gaps, null),
                Observations.DRM_NOT_READ, null);
    }

    private static Observation seen(Gpu... gpus) {
        return seen(List.of(gpus), List.of());
    }

    private static List<String> states(Observation o) {
        return o.inventory().gpus().stream().map(g -> g.pciAddress() + " " + g.health().status().id()).toList();
    }

    @Test
    void anNvidiaGpuNvmlNoLongerListsReadsLostWithWhatItWasAndOneRenumberedIsTheSameGpu() {
        Gpu a = h100("0000:18:00.0", "GPU-a");
        Gpu b = h100("0000:19:00.0", "GPU-b");
        assertEquals(List.of("0000:18:00.0 ok", "0000:19:00.0 ok"), states(lost.apply(seen(a, b))));

        Observation gone = lost.apply(seen(a));
        assertEquals(List.of("0000:18:00.0 ok", "0000:19:00.0 lost"), states(gone));
        Gpu was = gone.inventory().gpus().get(1);
        assertEquals(List.of(HealthReason.GPU_LOST), was.health().reasons());
        assertEquals(List.of("h100", "GPU-b", "remembered"), List.of(was.model(), was.uuid(), was.sources().get("model")));
        assertEquals(null, was.kernelDriver(), "no driver is bound to a function that is gone");

        // A rescan put the card back at another bus number: its UUID says it is the same GPU.
        Observation renumbered = lost.apply(seen(a, h100("0000:1a:00.0", "GPU-b")));
        assertEquals(List.of("0000:18:00.0 ok", "0000:1a:00.0 ok"), states(renumbered));
        assertTrue(log.toString().contains("GPU back on the PCI bus"), log::toString);
        assertEquals(2, lost.remembered());
    }

    @Test
    void anIncompletePassShowsTheMemoryButDoesNotChangeIt() {
        Gpu a = h100("0000:18:00.0", "GPU-a");
        Gpu b = h100("0000:19:00.0", "GPU-b");
        lost.apply(seen(a, b));
        // A pass that may have missed a GPU: b stays remembered, and a new GPU is not taken yet.
        Gpu c = h100("0000:1a:00.0", "GPU-c");
        Observation incomplete = lost.apply(seen(List.of(a, c), List.of("nvml failed")));
        assertEquals(List.of("0000:18:00.0 ok", "0000:19:00.0 lost", "0000:1a:00.0 ok"), states(incomplete));
        assertEquals(2, lost.remembered());
    }

    @Test
    void theSamePassTwiceIsTheSameObservationAndAStableMemory() {
        Gpu a = h100("0000:18:00.0", "GPU-a");
        lost.apply(seen(a, h100("0000:19:00.0", "GPU-b")));
        Observation steady = seen(a);
        Observation first = lost.apply(steady);
        Observation second = lost.apply(steady);
        assertSame(first.inventory(), second.inventory(), "a steady pass gets the very inventory again");
        assertEquals(1, log.toString().split("GPU gone from the PCI bus", -1).length - 1, "said once: " + log);
    }

    @Test
    void aRecordOfThisBootIsTakenOneOfAnotherBootOrWithoutABootIdIsNot() {
        GpuCapacity record = new GpuCapacity();
        record.setSpec(new GpuCapacitySpec(List.of(GpuCapacitySpec.GpuEntry.of(h100("0000:18:00.0", "GPU-a"), null),
                GpuCapacitySpec.GpuEntry.of(h100("0000:19:00.0", "GPU-b"), null)), null, null, null, null, null, null,
                null, null).withBootId("boot-1"));

        LostGpus other = new LostGpus(new AgentLog(new PrintWriter(new StringWriter()), java.time.Clock.systemUTC()));
        assertEquals(false, other.seed("boot-2", record), "another boot: the cards may have been taken out");
        assertEquals(List.of("0000:18:00.0 ok"), states(other.apply(seen(h100("0000:18:00.0", "GPU-a")))));
        LostGpus older = new LostGpus(new AgentLog(new PrintWriter(new StringWriter()), java.time.Clock.systemUTC()));
        assertEquals(false, older.seed("boot-1", withoutBootId(record)), "an older agent's record: no boot id");

        assertTrue(lost.seed("boot-1", record));
        assertEquals(List.of("0000:18:00.0 ok", "0000:19:00.0 lost"), states(lost.apply(seen(h100("0000:18:00.0", "GPU-a")))));

        // A reboot (a new boot id) forgets it; the next complete pass is the memory.
        assertTrue(lost.noteBoot("boot-2"));
        assertEquals(List.of("0000:18:00.0 ok"), states(lost.apply(seen(h100("0000:18:00.0", "GPU-a")))));
        assertEquals(1, lost.remembered());
    }

    @Test
    void deletingTheRecordForgetsEveryLostGpu() {
        Gpu a = h100("0000:18:00.0", "GPU-a");
        lost.apply(seen(a, h100("0000:19:00.0", "GPU-b")));
        assertEquals(2, lost.apply(seen(a)).inventory().gpus().size());
        lost.forget();
        assertEquals(List.of("0000:18:00.0 ok"), states(lost.apply(seen(a))));
    }

    private static GpuCapacity withoutBootId(GpuCapacity record) {
        GpuCapacity copy = new GpuCapacity();
        copy.setSpec(record.getSpec().withBootId(null));
        return copy;
    }
}

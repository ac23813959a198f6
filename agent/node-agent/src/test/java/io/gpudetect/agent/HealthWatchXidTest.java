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
import io.gpudetect.nvml.NvmlEvent;
import io.gpudetect.nvml.NvmlEventWatcher;
import io.gpudetect.sink.Observation;
import io.gpudetect.testing.Observations;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What NVML's events do to the passes after them: which Xids mark a GPU, for how long, and what the metrics count. */
class HealthWatchXidTest {

    private final StringWriter log = new StringWriter();
    private final AgentMetrics metrics = new AgentMetrics();
    private final HealthWatch watch = new HealthWatch(new AgentLog(new PrintWriter(log, true), Clock.systemUTC()),
            metrics, Clock.systemUTC());
    private final List<String> triggers = new ArrayList<>();

    HealthWatchXidTest() {
        watch.onEvent(triggers::add);
    }

    private static Observation pass(Health.Status status) {
        Gpu g = Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:18:00.0"))
                .health(status == Health.Status.LOST ? Health.of(List.of(HealthReason.GPU_LOST), null, List.of("gone"))
                        : Health.ok())
                .build();
        Gpu other = Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:3b:00.0"))
                .health(Health.ok()).build();
        return new Observation(new Inventory("test", List.of(g, other), List.of(), List.of(), null, List.of(), null),
                Observations.DRM_NOT_READ, null);
    }

    private static NvmlEventWatcher.HealthEvent xid(long xid) {
        return new NvmlEventWatcher.HealthEvent(0, "GPU-1", 0, 0x18, 0, NvmlEvent.XID_CRITICAL, xid);
    }

    @Test
    void anApplicationsXidIsCountedAndMarksNothing() {
        for (long x : List.of(13L, 31L, 43L, 45L, 68L, 109L)) {
            watch.event(xid(x));
        }
        Observation seen = pass(Health.Status.OK);
        assertSame(seen, watch.apply(seen));
        assertEquals(List.of(), triggers);
        assertTrue(metrics.render().contains("gpu_detect_xid_events_total{xid=\"31\"} 1"), metrics::render);
    }

    @Test
    void aCriticalXidFailsItsGpuUntilTheGpuIsSeenLostAndBack() {
        watch.event(xid(48));
        assertEquals(List.of("Xid 48 on GPU 0 GPU-1"), triggers);

        for (int pass = 0; pass < 3; pass++) {
            Health h = watch.apply(pass(Health.Status.OK)).inventory().gpus().get(0).health();
            assertEquals(Health.Status.FAILED, h.status(), "pass " + pass);
            assertEquals(List.of(HealthReason.XID_CRITICAL), h.reasons());
            assertTrue(h.problems().get(0).startsWith("Xid 48 reported by NVML at "), h.problems()::toString);
        }
        assertEquals(Health.Status.OK, watch.apply(pass(Health.Status.OK)).inventory().gpus().get(1).health().status(),
                "the other GPU");

        Health lost = watch.apply(pass(Health.Status.LOST)).inventory().gpus().get(0).health();
        assertEquals(Health.Status.LOST, lost.status());
        assertEquals(List.of(HealthReason.GPU_LOST, HealthReason.XID_CRITICAL), lost.reasons());

        Observation back = pass(Health.Status.OK);
        assertSame(back, watch.apply(back), "reset: the mark is gone");
        assertEquals(0, watch.marked());
    }

    @Test
    void aDoubleBitEccEventFailsItsGpu() {
        watch.event(new NvmlEventWatcher.HealthEvent(0, "GPU-1", 0, 0x18, 0, NvmlEvent.DOUBLE_BIT_ECC, 0));
        Health h = watch.apply(pass(Health.Status.OK)).inventory().gpus().get(0).health();
        assertEquals(List.of(HealthReason.UNCORRECTABLE_ECC), h.reasons());
        assertEquals(Health.Status.FAILED, h.status());
        assertTrue(metrics.render().contains("gpu_detect_health_events_total{type=\"double-bit-ecc\"} 1"));
    }

    @Test
    void metricsGiveEachGpuOneSeriesPerState() {
        watch.event(xid(79));
        metrics.gpus(watch.apply(pass(Health.Status.OK)).inventory().gpus());
        String m = metrics.render();
        assertTrue(m.contains("gpu_detect_gpu_health{pci_address=\"0000:18:00.0\",uuid=\"\",vendor=\"nvidia\",model=\"h100\","
                + "state=\"failed\"} 1"), m);
        assertTrue(m.contains("gpu_detect_gpu_health{pci_address=\"0000:18:00.0\",uuid=\"\",vendor=\"nvidia\",model=\"h100\","
                + "state=\"ok\"} 0"), m);
        assertTrue(m.contains("gpu_detect_xid_events_total{xid=\"79\"} 1"), m);
    }
}

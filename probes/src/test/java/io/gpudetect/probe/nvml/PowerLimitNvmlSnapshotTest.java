package io.gpudetect.probe.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlReturn;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.ProbeResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an {@code nvml.json} snapshot's power, VBIOS and PCIe link calls become: the cap in force is the enforced
 * limit, the range and default in {@code powerLimits}, milliwatts as watts; a snapshot recorded before these
 * calls were asked reads as not asked, without a diagnostic.
 */
class PowerLimitNvmlSnapshotTest {

    private static <T> NvmlCall<T> ok(String fn, T value) {
        return NvmlCall.success(fn, value);
    }

    private static NvmlSnapshot.Device l4(NvmlCall<Long> enforced, NvmlCall<NvmlSnapshot.PowerRange> range,
                                          NvmlCall<Long> dflt, NvmlCall<Long> currentWidth) {
        return new NvmlSnapshot.Device(0, ok("nvmlDeviceGetHandleByIndex_v2", null), ok("nvmlDeviceGetName", "NVIDIA L4"),
                null, null, null, ok("nvmlDeviceGetPciInfo_v3", new NvmlSnapshot.Pci("00000000:82:00.0", 0, 0x82, 0,
                        "27b810de", "16ca10de")), null, null, null, null,
                ok("nvmlDeviceGetPowerManagementLimit", 72000L), null, null, null, null, List.of(),
                enforced, range, dflt, ok("nvmlDeviceGetVbiosVersion", "95.04.29.00.06"),
                ok("nvmlDeviceGetMaxPcieLinkGeneration", 4L), ok("nvmlDeviceGetCurrPcieLinkGeneration", 1L),
                ok("nvmlDeviceGetMaxPcieLinkWidth", 16L), currentWidth, null, null, null, null, null, null, null);
    }

    private static NvmlSnapshot host(NvmlSnapshot.Device d) {
        return new NvmlSnapshot(1, "/usr/lib64/libnvidia-ml.so.1", null, ok("nvmlInit_v2", null), null,
                ok("nvmlSystemGetDriverVersion", "550.90.07"), null, ok("nvmlDeviceGetCount_v2", 1), List.of(d),
                ok("nvmlShutdown", null));
    }

    @Test
    void theEnforcedCapItsRangeDefaultVbiosAndLink() {
        ProbeResult r = NvmlGpus.interpret(host(l4(ok("nvmlDeviceGetEnforcedPowerLimit", 60000L),
                ok("nvmlDeviceGetPowerManagementLimitConstraints", new NvmlSnapshot.PowerRange(40000L, 72000L)),
                ok("nvmlDeviceGetPowerManagementDefaultLimit", 72000L), ok("nvmlDeviceGetCurrPcieLinkWidth", 8L))),
                "nvml.json");

        Gpu g = r.gpus().get(0);
        assertEquals(60.0, g.powerLimitWatts(), "the enforced cap, below the 72 W set one");
        assertEquals(new PowerLimits(40.0, 72.0, 72.0), g.powerLimits());
        assertEquals("95.04.29.00.06", g.vbiosVersion());
        assertEquals(new PcieLink(1, 4, 8, 16), g.pcieLink());
        assertEquals(Boolean.TRUE, g.pcieLink().degraded());
        assertEquals(ProbeResult.Outcome.OK, r.outcome(), r.diagnostics().toString());
    }

    @Test
    void aSnapshotRecordedBeforeTheseCallsKeepsTheSetLimitAndSaysNothing() {
        NvmlSnapshot.Device old = l4(null, null, null, null);
        NvmlSnapshot.Device withoutLink = new NvmlSnapshot.Device(0, old.handle(), old.name(), null, null, null, old.pci(),
                null, null, null, null, old.powerLimitMilliwatts(), null, null, null, null, List.of(),
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);

        ProbeResult r = NvmlGpus.interpret(host(withoutLink), "nvml.json");

        Gpu g = r.gpus().get(0);
        assertEquals(72.0, g.powerLimitWatts());
        assertNull(g.powerLimits());
        assertNull(g.pcieLink());
        assertNull(g.vbiosVersion());
        assertTrue(r.diagnostics().isEmpty(), r.diagnostics().toString());
    }

    @Test
    void notSupportedIsNoRangeAndNoWarning() {
        ProbeResult r = NvmlGpus.interpret(host(l4(
                NvmlCall.failure("nvmlDeviceGetEnforcedPowerLimit", NvmlReturn.ERROR_NOT_SUPPORTED, "Not Supported"),
                NvmlCall.failure("nvmlDeviceGetPowerManagementLimitConstraints", NvmlReturn.ERROR_NOT_SUPPORTED, "Not Supported"),
                null, ok("nvmlDeviceGetCurrPcieLinkWidth", 16L))), "nvml.json");

        assertEquals(72.0, r.gpus().get(0).powerLimitWatts(), "the set limit where no enforced one is known");
        assertNull(r.gpus().get(0).powerLimits());
        assertTrue(r.diagnostics().isEmpty(), r.diagnostics().toString());
    }
}

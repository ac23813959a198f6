package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import java.nio.file.Path;

/**
 * The fuzz check for a probe that is not a single tool's text (NVML replay, sysfs): the input is a whole
 * bundle in {@link BundleText} form, the probe runs over it as a replay does, and must return a result
 * with well-formed diagnostics and, once the pass has bounded it, bounded values.
 */
final class ProbeFuzzing {

    private ProbeFuzzing() {
    }

    static void checkOverBundle(String probeName, byte[] bundle) {
        Probe probe = Probes.defaults().stream().filter(p -> p.name().equals(probeName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no probe named " + probeName + " in Probes.defaults()"));
        Path dir = BundleText.write(bundle);
        try {
            BundleSource source;
            try {
                source = BundleSource.open(dir);
            } catch (BundleException e) {
                return; // a broken bundle.json: BundleManifestFuzzTest's concern
            }
            ProbeResult result = probe.probe(source);
            assertNotNull(result, "probe returned null");
            assertEquals(probeName, result.probe());
            for (Diagnostic d : result.diagnostics()) {
                FuzzInvariants.wellFormed(d, probeName, Long.MAX_VALUE - 1);
                assertFalse(d.message().contains("Exception:") && d.message().contains("\tat "),
                        () -> "a stack trace in a diagnostic: " + d);
            }
            FuzzInvariants.bounded(FieldLimits.apply(result));
            assertTrue(result.gpus().stream().allMatch(g -> g != null), "null GPU");
        } finally {
            BundleText.delete(dir);
        }
    }
}

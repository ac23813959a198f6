package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.probe.Probe;
import io.gpudetect.probe.Probes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** A probe added to {@link Probes#defaults()} without a fuzz test fails the build here. */
class FuzzTargetsTest {

    @Test
    void everyProbeHasAFuzzTestNamedAfterIt() {
        List<String> missing = new ArrayList<>();
        for (Probe probe : Probes.defaults()) {
            String className = fuzzTestClassFor(probe.name());
            try {
                Class.forName(FuzzTargetsTest.class.getPackageName() + "." + className);
            } catch (ClassNotFoundException e) {
                missing.add(className + " (for probe " + probe.name() + ")");
            }
        }
        assertTrue(missing.isEmpty(), "add a fuzz test like NvidiaSmiXmlFuzzTest (a tool's text) or SysfsPciFuzzTest"
                + " (any other probe) for: " + missing + "; see docs/fuzzing.md");
    }

    /** {@code nvidia-smi-xml} -> {@code NvidiaSmiXmlFuzzTest}. */
    static String fuzzTestClassFor(String probeName) {
        StringBuilder b = new StringBuilder();
        for (String word : probeName.split("[^A-Za-z0-9]+")) {
            if (!word.isEmpty()) {
                b.append(word.substring(0, 1).toUpperCase(Locale.ROOT)).append(word.substring(1));
            }
        }
        return b.append("FuzzTest").toString();
    }
}

package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.Probes;
import io.gpudetect.probe.ToolProbe;
import io.gpudetect.source.ToolsOnlySource;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The fuzz check for any {@link ToolProbe} in {@link Probes#defaults()}, found by its probe name: its
 * parser must return (never throw) on any text, with well-formed diagnostics, and the probe around it
 * must hand on only bounded values. A fuzz test class per tool calls {@link #check} and nothing else.
 */
final class ToolOutputFuzzing {

    private ToolOutputFuzzing() {
    }

    static void check(String probeName, byte[] output) {
        ToolProbe probe = toolProbe(probeName);
        String file = probe.command().bundleFile();
        // Decoded exactly as LiveSource and BundleSource decode tool output: invalid UTF-8 becomes U+FFFD.
        String text = new String(output, StandardCharsets.UTF_8);

        // The parser runs once, inside the probe as in production; what it returned or threw is kept,
        // because ToolProbe turns an exception into a diagnostic and the fuzzer must see it as a crash.
        ParsedOutput[] parsed = {null};
        RuntimeException[] thrown = {null};
        ToolProbe observed = new ToolProbe(probe.name(), probe.command(), (t, f) -> {
            try {
                parsed[0] = probe.parser().parse(t, f);
                return parsed[0];
            } catch (RuntimeException e) {
                thrown[0] = e;
                throw e;
            }
        }, probe.role());
        ProbeResult result = observed.probe(
                ToolsOnlySource.recorded(Map.of(probe.command().commandLine(), text), "fuzz input"));
        if (thrown[0] != null) {
            throw thrown[0];
        }
        long lines = FuzzInvariants.lines(text);
        if (parsed[0] != null) {
            FuzzInvariants.wellFormed(parsed[0].diagnostics(), probeName, lines);
        }
        assertEquals(probeName, result.probe());
        FuzzInvariants.wellFormed(result.diagnostics(), probeName, lines);
        FuzzInvariants.bounded(result);
    }

    static ToolProbe toolProbe(String probeName) {
        for (Probe p : Probes.defaults()) {
            if (p instanceof ToolProbe tool && tool.name().equals(probeName)) {
                return tool;
            }
        }
        throw new IllegalArgumentException("no ToolProbe named " + probeName + " in Probes.defaults()");
    }
}

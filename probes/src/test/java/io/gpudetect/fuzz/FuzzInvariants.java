package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.ProbeResult;
import java.util.List;
import java.util.stream.Stream;

/**
 * What must hold for any input, however broken: the properties every fuzz target checks after the code
 * under test has returned. (That it returned at all, without an exception, within the test's timeout
 * and the fork's 512 MB heap, is checked by Jazzer and JUnit.)
 */
final class FuzzInvariants {

    /** 16 TiB, as the nvidia-smi parsers bound it; any probe reporting more has read garbage. */
    private static final long MAX_MIB = 16L * 1024 * 1024;

    private FuzzInvariants() {
    }

    /**
     * A diagnostic says which probe and which file, and a line that exists in the text it read
     * ({@code lines} = the number of lines; one more is allowed for "the input ends here").
     */
    static void wellFormed(Diagnostic d, String expectedProbe, long lines) {
        assertNotNull(d.severity(), () -> "severity missing: " + d);
        assertEquals(expectedProbe, d.probe(), () -> "diagnostic names the wrong probe: " + d);
        assertNotNull(d.file(), () -> "diagnostic names no file: " + d);
        assertFalse(d.file().isBlank(), () -> "diagnostic names no file: " + d);
        assertNotNull(d.message(), () -> "diagnostic has no message: " + d);
        assertFalse(d.message().isBlank(), () -> "diagnostic has no message: " + d);
        if (d.line() != null) {
            assertTrue(d.line() > 0 && d.line() <= lines + 1,
                    () -> "line " + d.line() + " is not in the input (" + lines + " lines): " + d);
        }
    }

    static void wellFormed(List<Diagnostic> diagnostics, String expectedProbe, long lines) {
        diagnostics.forEach(d -> wellFormed(d, expectedProbe, lines));
    }

    /** What a probe hands on is bounded however long the input lines were. */
    static void bounded(ProbeResult result) {
        assertNotNull(result.outcome(), "outcome missing");
        for (Diagnostic d : result.diagnostics()) {
            assertTrue(d.message().length() <= FieldLimits.MAX_MESSAGE_CHARS,
                    () -> "diagnostic message of " + d.message().length() + " characters");
            assertNoControlCharacters(d.message());
        }
        result.gpus().forEach(FuzzInvariants::bounded);
        if (result.outcome() == ProbeResult.Outcome.OK) {
            assertTrue(result.diagnostics().stream().allMatch(d -> d.severity() == Diagnostic.Severity.INFO),
                    () -> "outcome ok with warnings: " + result.diagnostics());
        }
    }

    static void bounded(Gpu gpu) {
        strings(gpu).forEach(s -> {
            assertTrue(s.length() <= FieldLimits.MAX_VALUE_CHARS, () -> "a field of " + s.length() + " characters");
            assertNoControlCharacters(s);
        });
        gpu.sources().forEach((field, source) -> assertNotNull(source, () -> "no source for " + field));
        // Numbers a renderer or a label can use as they are: no overflowed sizes, no Infinity in JSON.
        assertTrue(gpu.memoryMiB() == null || gpu.memoryMiB() >= 0 && gpu.memoryMiB() <= MAX_MIB,
                () -> "implausible memoryMiB " + gpu.memoryMiB());
        assertTrue(gpu.memoryGi() == null || gpu.memoryGi() >= 0 && gpu.memoryGi() <= MAX_MIB / 1024,
                () -> "implausible memoryGi " + gpu.memoryGi());
        assertTrue(gpu.powerLimitWatts() == null || Double.isFinite(gpu.powerLimitWatts()) && gpu.powerLimitWatts() >= 0,
                () -> "implausible powerLimitWatts " + gpu.powerLimitWatts());
        assertTrue(gpu.computeUnits() == null || gpu.computeUnits() >= 0, () -> "negative computeUnits");
        assertTrue(gpu.health() == null || gpu.health().eccUncorrectedErrors() == null
                || gpu.health().eccUncorrectedErrors() >= 0, () -> "negative ECC count " + gpu.health());
        if (gpu.partitioning() != null) {
            gpu.partitioning().instances().forEach(p -> assertTrue(p.memoryMiB() == null
                    || p.memoryMiB() >= 0 && p.memoryMiB() <= MAX_MIB, () -> "implausible partition memory " + p));
        }
    }

    private static void assertNoControlCharacters(String s) {
        assertTrue(s.chars().noneMatch(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f)),
                () -> "control characters in '" + s + "'");
    }

    private static Stream<String> strings(Gpu g) {
        Stream<String> fields = GpuField.TEXT.stream().map(f -> f.of(g));
        Stream<String> partitions = g.partitioning() == null ? Stream.empty()
                : Stream.concat(Stream.of(g.partitioning().kind()), g.partitioning().instances().stream()
                        .flatMap(p -> Stream.of(p.profile(), p.uuid())));
        return Stream.concat(fields, partitions).filter(s -> s != null);
    }

    static long lines(String text) {
        return text.isEmpty() ? 0 : text.lines().count();
    }
}

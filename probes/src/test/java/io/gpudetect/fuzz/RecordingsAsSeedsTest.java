package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.Probes;
import io.gpudetect.probe.ToolProbe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each tool's fuzz check over every real recording and hand-made case that holds that tool's output: the seeds
 * the fuzz tests' corpora held when the recordings were committed. The recordings are tool output published by
 * others, so they are read here, at test time, from the shared set ({@link Fixtures#shared()}), never copied
 * into the corpora; the hand-made cases from {@code test-fixtures/cases}. For fuzzing by hand,
 * {@code test-fixtures/tools/make-fuzz-seeds.py} writes the same files into the corpora as {@code shared-*}
 * seeds, which git ignores (docs/fuzzing.md).
 */
class RecordingsAsSeedsTest {

    private static final Path CASES = Path.of("..", "test-fixtures", "cases");

    /** (probe, file): every bundle file some tool probe reads, in every recording and case folder. */
    static Stream<Arguments> toolOutputs() {
        List<Path> folders = new ArrayList<>(Fixtures.folders(CASES));
        Fixtures.shared().map(s -> s.resolve("hosts")).ifPresent(h -> folders.addAll(Fixtures.folders(h)));
        List<Arguments> all = new ArrayList<>();
        for (Probe probe : Probes.defaults()) {
            if (probe instanceof ToolProbe tool) {
                for (Path folder : folders) {
                    Path file = folder.resolve(tool.command().bundleFile());
                    if (Files.isRegularFile(file)) {
                        all.add(Arguments.of(tool.name(), file));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("toolOutputs")
    void aRecordingPassesItsToolsFuzzCheck(String probe, Path file) throws IOException {
        ToolOutputFuzzing.check(probe, Files.readAllBytes(file));
    }

    /** Every recording and case folder, whole: the seeds of the probes that read several files, and of the pass. */
    static Stream<Path> bundles() {
        List<Path> folders = new ArrayList<>(Fixtures.folders(CASES));
        Fixtures.shared().map(s -> s.resolve("hosts")).ifPresent(h -> folders.addAll(Fixtures.folders(h)));
        return folders.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bundles")
    void aWholeRecordingPassesTheBundleFuzzChecks(Path folder) {
        byte[] bundle = BundleText.of(folder);
        ProbeFuzzing.checkOverBundle("nvml", bundle);
        ProbeFuzzing.checkOverBundle("sysfs-pci", bundle);
        new DetectorFuzzTest().bundle(bundle);
    }

    @Test
    void thereAreRecordingsForTheToolProbes() {
        assertFalse(toolOutputs().findAny().isEmpty(), "no tool output found under " + CASES.toAbsolutePath());
    }
}

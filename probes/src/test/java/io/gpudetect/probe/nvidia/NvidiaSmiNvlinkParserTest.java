package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.nvidia.NvidiaSmiNvlinkParser.GpuStatus;
import io.gpudetect.probe.nvidia.NvidiaSmiNvlinkParser.State;
import io.gpudetect.probe.nvidia.NvidiaSmiNvlinkParser.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code nvidia-smi nvlink -s} in the shapes public output shows (hand-written here, none copied): per-link speeds
 * indented by a tab or by spaces, {@code <inactive>} links, the one-line forms for a GPU whose links are all inactive
 * and for one without NVLink, and a GPU header with nothing under it.
 */
class NvidiaSmiNvlinkParserTest {

    private static final String FILE = "nvidia-smi-nvlink.txt";

    private static String gpu(int index, String name, String speed, int links) {
        StringBuilder t = new StringBuilder("GPU " + index + ": " + name + " (UUID: GPU-" + index
                + "1111111-2222-3333-4444-555555555555)\n");
        for (int l = 0; l < links; l++) {
            t.append("\t Link ").append(l).append(": ").append(speed).append('\n');
        }
        return t.toString();
    }

    @Test
    void eightH100WithEighteenLinksEachAtTheFourthGenerationsSpeed() {
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            t.append(gpu(i, "NVIDIA H100 80GB HBM3", "26.562 GB/s", 18));
        }

        Status s = NvidiaSmiNvlinkParser.parse(t.toString(), FILE);

        assertEquals(List.of(), s.diagnostics());
        assertEquals(8, s.gpus().size());
        GpuStatus g = s.gpus().get(5);
        assertEquals(State.LINKS, g.state());
        assertEquals(18, g.up());
        assertEquals(0, g.down());
        assertEquals(4, g.generation());
        assertEquals("NVIDIA H100 80GB HBM3", g.name());
        assertEquals("GPU-51111111-2222-3333-4444-555555555555", g.uuid());
    }

    @Test
    void inactiveLinksAmongActiveOnesIndentedBySpaces() {
        String t = """
                GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-a)
                         Link 0: 25.781 GB/s
                         Link 1: 25.781 GB/s
                         Link 2: 25.781 GB/s
                         Link 3: <inactive>
                         Link 4: 25.781 GB/s
                         Link 5: <inactive>
                """;

        GpuStatus g = NvidiaSmiNvlinkParser.parse(t, FILE).gpus().get(0);

        assertEquals(4, g.up());
        assertEquals(2, g.down());
        assertEquals(2, g.generation(), "V100's speed is NVLink 2's");
        assertEquals(3, g.links().get(3).link());
        assertNull(g.links().get(3).speed());
    }

    @Test
    void generationsFromTheSpeedsInTheTableOnly() {
        assertEquals(3, NvidiaSmiNvlinkParser.parse(gpu(0, "NVIDIA A100-SXM4-80GB", "25 GB/s", 12), FILE)
                .gpus().get(0).generation());
        assertEquals(3, NvidiaSmiNvlinkParser.parse(gpu(0, "x", "25.000 GB/s", 12), FILE).gpus().get(0).generation(),
                "25 and 25.000 are one speed");
        assertEquals(3, NvidiaSmiNvlinkParser.parse(gpu(0, "NVIDIA RTX A6000", "14.062 GB/s", 4), FILE)
                .gpus().get(0).generation());
        assertEquals(5, NvidiaSmiNvlinkParser.parse(gpu(0, "NVIDIA GB200", "53.125 GB/s", 18), FILE)
                .gpus().get(0).generation());
        assertNull(NvidiaSmiNvlinkParser.parse(gpu(0, "x", "20.000 GB/s", 4), FILE).gpus().get(0).generation(),
                "a speed not seen with a known GPU says no generation");
        String mixed = "GPU 0: x\n\t Link 0: 26.562 GB/s\n\t Link 1: 25 GB/s\n";
        assertNull(NvidiaSmiNvlinkParser.parse(mixed, FILE).gpus().get(0).generation());
    }

    @Test
    void theOneLineFormsAndAGpuWithNothingUnderIt() {
        String t = """
                GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-a)
                NVML: Unable to retrieve Nvlink information as all links are inActive
                GPU 1: NVIDIA B200 (UUID: GPU-b)
                NVML: Unable to retrieve NVLink information as all links are inactive
                GPU 2: NVIDIA L40S (UUID: GPU-c)
                Device does not have or support Nvlink
                GPU 3: Tesla T4 (UUID: GPU-d)

                """;

        Status s = NvidiaSmiNvlinkParser.parse(t, FILE);

        assertEquals(List.of(), s.diagnostics());
        assertEquals(State.ALL_INACTIVE, s.gpus().get(0).state());
        assertEquals(State.ALL_INACTIVE, s.gpus().get(1).state());
        assertEquals(State.NONE, s.gpus().get(2).state());
        assertEquals(State.NOTHING_SAID, s.gpus().get(3).state());
        assertEquals(0, s.gpus().get(0).up());
        assertNull(s.gpus().get(0).generation());
    }

    @Test
    void anUnreadableLineLeavesThatGpuOutAndSaysWhere() {
        String t = gpu(0, "NVIDIA H100 80GB HBM3", "26.562 GB/s", 2)
                + "GPU 1: NVIDIA H100 80GB HBM3\n\t Link 0: 26.562 GB/s\n\t Link 1: degraded\n"
                + gpu(2, "NVIDIA H100 80GB HBM3", "26.562 GB/s", 2);

        Status s = NvidiaSmiNvlinkParser.parse(t, FILE);

        assertEquals(List.of(0, 2), List.copyOf(s.gpus().keySet()));
        Diagnostic d = s.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.WARNING, d.severity());
        assertEquals(6, d.line());
        assertTrue(d.message().contains("link 1 reads 'degraded'"), d.message());
    }

    @Test
    void numbersTooLongForAnIndexAreNotGpuOrLinkNumbers() {
        Status s = NvidiaSmiNvlinkParser.parse("GPU 0: x\n\t Link 99999999999: 26.562 GB/s\nGPU 99999999999: y\n", FILE);

        // Read as text that is not a link line (a warning at its line), not as a number that overflows.
        assertTrue(s.gpus().isEmpty());
        assertEquals(2, s.diagnostics().get(0).line());
    }

    @Test
    void textWithoutAGpuLineIsNotThisOutput() {
        Status s = NvidiaSmiNvlinkParser.parse("Failed to initialize NVML: Driver/library version mismatch\n", FILE);

        assertTrue(s.gpus().isEmpty());
        assertEquals(1, s.diagnostics().size());
        assertTrue(s.diagnostics().get(0).message().contains("no 'GPU <n>: <name>' line"), s.diagnostics().toString());
    }
}

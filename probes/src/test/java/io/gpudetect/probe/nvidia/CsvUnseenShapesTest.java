package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.PastedText;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Headerless and looping {@code --query-gpu} CSV (issue 28, kinds 3 and 4). Inputs are written here in the shapes
 * seen in output people pasted; none is copied from anywhere.
 */
class CsvUnseenShapesTest {

    /** What ToolProbe does: paste repair first, then the parser with the command lines it took off. */
    private static ParsedOutput pasted(String text) {
        PastedText.Cleaned c = PastedText.clean(text);
        return NvidiaSmiCsvParser.parse(c.text(), "nvidia-smi-query.csv", c.commands());
    }

    @Test
    void headerlessRowsTakeTheirColumnsFromThePastedCommandLine() {
        ParsedOutput out = pasted("""
                ubuntu@gpu-01:~$ nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap --format=csv,noheader
                0, NVIDIA A100-SXM4-80GB, 81920 MiB, 535.104.05, 8.0
                1, NVIDIA A100-SXM4-80GB, 81920 MiB, 535.104.05, 8.0
                """);
        assertEquals(2, out.gpus().size());
        Gpu g = out.gpus().get(1);
        assertEquals("NVIDIA A100-SXM4-80GB", g.name());
        assertEquals(81920L, g.memoryMiB());
        assertEquals("535.104.05", g.driverVersion());
        assertEquals("8.0", g.computeCapability());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.message().contains("command line pasted on line 1")), out.diagnostics().toString());
    }

    @Test
    void commandLineWithNounitsAndQuotedFieldList() {
        ParsedOutput out = pasted("""
                $ nvidia-smi --query-gpu="gpu_name,memory.total" --format=csv,noheader,nounits
                NVIDIA GeForce RTX 3060, 12288
                """);
        assertEquals(1, out.gpus().size());
        assertEquals(12288L, out.gpus().get(0).memoryMiB());
    }

    @Test
    void commandLineThatDoesNotMatchTheRowsGivesALineNumberedWarning() {
        ParsedOutput out = pasted("""
                $ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
                NVIDIA L4, 23034 MiB, 550.90.07
                """);
        assertEquals(0, out.gpus().size());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.line() != null && d.line() == 2
                && d.message().contains("expected 2 values")), out.diagnostics().toString());
    }

    @Test
    void withoutCommandLineSelfDescribingColumnsArePlaced() {
        ParsedOutput out = NvidiaSmiCsvParser.parse("NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15, 35 %\n", "f");
        assertEquals(1, out.gpus().size(), "a single row is one GPU even without bus id or UUID");
        Gpu g = out.gpus().get(0);
        assertEquals("NVIDIA H100 80GB HBM3", g.name());
        assertEquals(81559L, g.memoryMiB());
        assertEquals("550.54.15", g.driverVersion());
    }

    @Test
    void aSizeThatIsNotACardsIsNotTakenForTheTotal() {
        ParsedOutput used = NvidiaSmiCsvParser.parse("NVIDIA GeForce RTX 3090, 2345 MiB\n", "f");
        assertNull(used.gpus().get(0).memoryMiB(), "2345 MiB is no card's size: memory.used, not the total");
        ParsedOutput threeSizes = NvidiaSmiCsvParser.parse("NVIDIA L40S, 1200 MiB, 46068 MiB, 44868 MiB\n", "f");
        assertEquals(46068L, threeSizes.gpus().get(0).memoryMiB(), "the size that covers the other two is the total");
        ParsedOutput moving = NvidiaSmiCsvParser.parse("NVIDIA A10, 8192 MiB\nNVIDIA A10, 16384 MiB\n", "f");
        assertNull(moving.gpus().get(0).memoryMiB(), "one product's size moving between rows is usage");
    }

    @Test
    void twoPartNumbersAreADriverOnlyWhereUnitsWereKept() {
        assertEquals("470.74", NvidiaSmiCsvParser.parse("NVIDIA GeForce GT 1030, 470.74, 2001 MiB\n", "f").gpus().get(0).driverVersion());
        assertNull(NvidiaSmiCsvParser.parse("NVIDIA GeForce GT 1030, 300.00\n", "f").gpus().get(0).driverVersion(),
                "without units 300.00 may be a power limit");
    }

    @Test
    void rowsWithNothingThatSaysWhatItIsAreLeftOutWithTheirLine() {
        ParsedOutput out = NvidiaSmiCsvParser.parse("45, 30 %\n", "f");
        assertEquals(0, out.gpus().size());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.ERROR));
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.line() != null && d.line() == 1));
    }

    @Test
    void aLoopLogGivesOneGpuPerIndex() {
        StringBuilder log = new StringBuilder("timestamp, index, name, utilization.gpu [%]\n");
        for (int s = 0; s < 50; s++) {
            for (int i = 0; i < 2; i++) {
                log.append(String.format("2025/03/01 12:00:%02d.%03d, %d, NVIDIA RTX A6000, %d %%%n", s, 100 + i * 3, i, s % 100));
            }
        }
        ParsedOutput out = NvidiaSmiCsvParser.parse(log.toString(), "f");
        assertEquals(2, out.gpus().size());
    }

    @Test
    void aLoopLogWithoutIdsIsCountedByItsTimestamps() {
        StringBuilder log = new StringBuilder("timestamp, name, memory.used [MiB]\n");
        for (int s = 0; s < 30; s++) {
            for (int i = 0; i < 4; i++) {
                log.append(String.format("2025/03/01 12:01:%02d.%03d, NVIDIA H100 80GB HBM3, %d MiB%n", s, 10 + i * 4, s));
            }
        }
        ParsedOutput out = NvidiaSmiCsvParser.parse(log.toString(), "f");
        assertEquals(4, out.gpus().size(), "four rows a few ms apart, then a second's gap: four GPUs");

        StringBuilder one = new StringBuilder("timestamp, name, memory.used [MiB]\n");
        for (int s = 0; s < 105; s++) {
            one.append(String.format("2025/03/01 12:%02d:%02d.%03d, NVIDIA GeForce RTX 4090, %d MiB%n", s / 60, s % 60, 7, s));
        }
        assertEquals(1, NvidiaSmiCsvParser.parse(one.toString(), "f").gpus().size(), "a 1-GPU log of 105 samples is one GPU");
    }

    @Test
    void aOneShotQueryWithTimestampsKeepsEveryRow() {
        String csv = """
                timestamp, name, memory.total [MiB]
                2025/03/01 12:00:00.101, NVIDIA H100 80GB HBM3, 81559 MiB
                2025/03/01 12:00:00.104, NVIDIA H100 80GB HBM3, 81559 MiB
                2025/03/01 12:00:00.107, NVIDIA H100 80GB HBM3, 81559 MiB
                """;
        assertEquals(3, NvidiaSmiCsvParser.parse(csv, "f").gpus().size(), "one pass: identical rows are identical cards");
    }

    @Test
    void aPastedLoopWithoutAnythingToTellCardsApartSaysTheCountIsALowerBound() {
        ParsedOutput out = pasted("""
                $ nvidia-smi --query-gpu=name,utilization.gpu --format=csv,noheader -l 1
                NVIDIA GeForce RTX 3080, 3 %
                NVIDIA GeForce RTX 3080, 97 %
                NVIDIA GeForce RTX 3080, 98 %
                """);
        assertEquals(1, out.gpus().size());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING
                && d.message().contains("at least 1 GPU")), out.diagnostics().toString());
    }

    @Test
    void rowsOfTheSameBusIdOrUuidAreOneGpuAndRepeatedHeadersAreSkipped() {
        String csv = """
                pci.bus_id, uuid, temperature.gpu
                00000000:17:00.0, GPU-11111111-2222-3333-4444-555555555555, 40
                pci.bus_id, uuid, temperature.gpu
                00000000:17:00.0, GPU-11111111-2222-3333-4444-555555555555, 41
                """;
        ParsedOutput out = NvidiaSmiCsvParser.parse(csv, "f");
        assertEquals(1, out.gpus().size());
        assertEquals(PciAddress.of("0000:17:00.0"), out.gpus().get(0).pciAddress());
    }

    @Test
    void aWatchBannerIsTakenOffAndItsCommandNamesTheColumns() {
        ParsedOutput out = pasted("""
                Every 2.0s: nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader      node7: Tue Mar  4 10:00:00 2025

                0, Tesla V100-SXM2-16GB, 16384 MiB
                1, Tesla V100-SXM2-16GB, 16384 MiB
                Every 2.0s: nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader      node7: Tue Mar  4 10:00:02 2025

                0, Tesla V100-SXM2-16GB, 16384 MiB
                1, Tesla V100-SXM2-16GB, 16384 MiB
                """);
        assertEquals(2, out.gpus().size());
        assertEquals(16384L, out.gpus().get(0).memoryMiB());
    }

    @Test
    void commentLinesAreNotRows() {
        ParsedOutput out = pasted("""
                nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader
                # Output
                1 %
                """);
        assertEquals(1, out.gpus().size(), "one row under the command: one GPU, of which only the vendor is known");
        assertNull(out.gpus().get(0).name());
    }

    @Test
    void aCommandLineThatStartsWithItsPathAndRowsWithoutUnits() {
        ParsedOutput out = pasted("""
                /usr/bin/nvidia-smi -i 0b:00.0 --query-gpu=power.limit,power.min_limit,power.max_limit,memory.total,vbios_version,driver_version,name,gpu_uuid,power.draw,temperature.gpu,temperature.memory,clocks.current.graphics,clocks.sm,clocks.mem,utilization.gpu,utilization.memory,fan.speed,pcie.link.width.current,pstate --format=csv,noheader,nounits
                250.00, 125.00, 300.00, 11019, 86.02.39.00.01, 470.82, GeForce GTX 1080 Ti, GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9, 61.20, 38, N/A, 1480, 1480, 5005, 3, 1, 23, 16, P8
                """);
        assertEquals(1, out.gpus().size());
        Gpu g = out.gpus().get(0);
        assertEquals("GeForce GTX 1080 Ti", g.name());
        assertEquals(11019L, g.memoryMiB());
        assertEquals("470.82", g.driverVersion());
        assertEquals(250.0, g.powerLimitWatts());
    }

    @Test
    void twoTimedRunsWithAThemedPromptAreTwoGpusNotFour() {
        String run = """
                ~ $  time nvidia-smi --query-gpu=gpu_name,memory.total,utilization.gpu --format=csv
                name, memory.total [MiB], utilization.gpu [%]
                GeForce GTX 1070, 8119 MiB, 3 %
                GeForce GTX 1050 Ti, 4040 MiB, 0 %

                real	0m0,031s
                """;
        ParsedOutput out = pasted(run + run);
        assertEquals(2, out.gpus().size(), out.diagnostics().toString());
    }

    @Test
    void hostileHeaderlessInputGivesDiagnosticsNotExceptions() {
        for (String text : List.of("NVIDIA X, 99999999999999999999999 MiB\n", "9999/99/99 99:99:99.999, NVIDIA X\n9999/99/99 99:99:99.999, NVIDIA X\n",
                ",,,,\n,,,,\n", "$ nvidia-smi --query-gpu= --format=csv,noheader\nNVIDIA T4\n",
                "$ nvidia-smi --query-gpu=index -l 1\n0\n0\n1\n", "2025/01/01 00:00:00.000, NVIDIA T4\n2024/01/01 00:00:00.000, NVIDIA T4\n")) {
            ParsedOutput out = pasted(text);
            assertTrue(out.gpus().size() <= 2, text);
        }
        ParsedOutput loop = pasted("$ nvidia-smi --query-gpu=index -l 1\n0\n0\n1\n");
        assertEquals(2, loop.gpus().size(), "index 0 and 1");
    }
}

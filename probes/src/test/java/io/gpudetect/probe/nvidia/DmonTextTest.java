package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

/** {@code nvidia-smi dmon} saved as the table (issue 28, kind 4): one GPU per index, never one per sample line. */
class DmonTextTest {

    @Test
    void samplesOfTwoGpusAreTwoGpus() {
        String dmon = """
                # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
                # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
                    0     71     33      -      0      0      0      0      0      0   1593    705
                    1     68     31      -      0      0      0      0      0      0   1593    705
                    0     71     33      -      2      0      0      0      0      0   1593   1980
                    1     69     31      -      0      0      0      0      0      0   1593    705
                # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
                # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
                    0     72     34      -     40      9      0      0      0      0   1593   1980
                    1     70     31      -      0      0      0      0      0      0   1593    705
                """;
        ParsedOutput out = NvidiaSmiTableParser.parse(dmon, "nvidia-smi.txt");
        assertEquals(2, out.gpus().size());
        assertEquals(Vendor.NVIDIA, out.gpus().get(0).vendor());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.message().contains("6 sample lines of 2 GPUs")), out.diagnostics().toString());
    }

    @Test
    void dateAndTimeColumnsAndAGarbledLine() {
        String dmon = """
                #Date       Time        gpu    pwr  gtemp     sm    mem
                #YYYYMMDD   HH:MM:SS    Idx      W      C      %      %
                 20250301   10:00:00      0     25     40      0      0
                 20250301   10:00:01      0     25     40      0      0
                 garbage
                """;
        ParsedOutput out = NvidiaSmiTableParser.parse(dmon, "nvidia-smi.txt");
        assertEquals(1, out.gpus().size());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING
                && d.line() != null && d.line() == 5), out.diagnostics().toString());
    }
}

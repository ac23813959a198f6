package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

class RocminfoParserTest {

    private static final String MI25 = "rocminfo_7x-radeon-instinct-mi25_gfx900_threadripper-pro";
    private static final String RX6700 = "rocminfo_radeon-rx-6700-xt_gfx1030_xeon-w2155";

    @Test
    void readsEveryGpuAgentAndSkipsTheCpuAgents() {
        ParsedOutput out = RocminfoParser.parse(Fixtures.host(MI25, "rocminfo.txt"), "rocminfo.txt");

        assertEquals(7, out.gpus().size());
        Gpu first = out.gpus().get(0);
        assertEquals("Radeon Instinct MI25", first.name());
        assertEquals("6860", first.pciDeviceId());
        assertEquals("gfx900", first.architecture());
        assertEquals(64, first.computeUnits());
        assertEquals("0000:63:00.0", first.pciAddress().toString(), "BDFID 25344 = 0x6300");
        assertEquals(16368L, first.memoryMiB(), "the coarse-grained GLOBAL pool, 16760832 KB");
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void stripsAnsiColourCodesAndReadsMarketingName() {
        String text = Fixtures.host(RX6700, "rocminfo.txt");
        assertTrue(text.startsWith("\u001B["), "the recording starts with a colour code");

        ParsedOutput out = RocminfoParser.parse(text, "rocminfo.txt");

        assertEquals(1, out.gpus().size());
        assertEquals("AMD Radeon RX 6700 XT", out.gpus().get(0).name());
        assertEquals("0000:67:00.0", out.gpus().get(0).pciAddress().toString());
        assertNull(out.gpus().get(0).uuid(), "'GPU-XX' is rocminfo's placeholder, not an id");
    }

    @Test
    void emptyOrForeignTextIsAnErrorSayingWhatWasExpected() {
        ParsedOutput out = RocminfoParser.parse("hello\nworld\n", "rocminfo.txt");

        assertTrue(out.gpus().isEmpty());
        assertEquals(1, out.diagnostics().size());
        Diagnostic d = out.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertEquals("rocminfo.txt", d.file());
        assertTrue(d.message().contains("Agent N"), d.message());
    }

    @Test
    void truncatedOutputKeepsTheAgentsThatWereComplete() {
        String text = Fixtures.host(MI25, "rocminfo.txt");
        String cut = text.substring(0, text.indexOf("Agent 4"));

        ParsedOutput out = RocminfoParser.parse(cut, "rocminfo.txt");

        assertEquals(2, out.gpus().size(), "agents 2 and 3 are complete; agent 4 was cut off");
    }

    @Test
    void garbageFieldsAreReportedWithTheirLineAndTheRestIsKept() {
        String text = String.join("\n",
                "*******",
                "Agent 2",
                "*******",
                "  Name:                    gfx90a",
                "  Marketing Name:          AMD Instinct MI210",
                "  Device Type:             GPU",
                "  Chip ID:                 banana",
                "  BDFID:                   99999999",
                "  Compute Unit:            104",
                "*******",
                "Agent 3",
                "*******",
                "  Name:                    mystery");

        ParsedOutput out = RocminfoParser.parse(text, "rocminfo.txt");

        assertEquals(1, out.gpus().size());
        Gpu gpu = out.gpus().get(0);
        assertEquals("AMD Instinct MI210", gpu.name());
        assertEquals(104, gpu.computeUnits());
        assertNull(gpu.pciDeviceId());
        assertNull(gpu.pciAddress());
        var warnings = Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(3, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("rocminfo.txt:7") && warnings.get(0).contains("Chip ID"), warnings.get(0));
        assertTrue(warnings.get(1).contains("rocminfo.txt:8") && warnings.get(1).contains("BDFID"), warnings.get(1));
        assertTrue(warnings.get(2).contains("rocminfo.txt:11") && warnings.get(2).contains("Device Type"), warnings.get(2));
    }

    /** The hand-written colour stripper removes exactly what the pattern {@code ESC\[[0-9;]*[A-Za-z]} matches. */
    @Test
    void coloursAreStrippedAsTheRegexWould() {
        java.util.regex.Pattern ansi = java.util.regex.Pattern.compile("\u001B\\[[0-9;]*[A-Za-z]");
        String[] pieces = {"\u001B", "[", "0", "1;", "37", "m", "K", "x", " ", ";", "\u001B[", "é", "9", "[m"};
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 20000; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String t = text.toString();
            assertEquals(ansi.matcher(t).replaceAll(""), RocminfoParser.withoutColours(t), t);
        }
        assertEquals("Agent 2\nName: gfx906", RocminfoParser.withoutColours("\u001B[37mAgent 2\u001B[0m\nName: gfx906"));
    }
}

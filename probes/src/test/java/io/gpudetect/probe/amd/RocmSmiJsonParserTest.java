package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

class RocmSmiJsonParserTest {

    @Test
    void oldKeyNamesCardModelIsTheSubsystem() {
        ParsedOutput out = RocmSmiJsonParser.parse(
                Fixtures.host("rocm-smi_4x-instinct-mi100_rocm-6.0.2_showallinfo", "rocm-smi.json"), "rocm-smi.json");

        assertEquals(4, out.gpus().size());
        Gpu first = out.gpus().get(0);
        assertEquals("Arcturus GL-XL [Instinct MI100]", first.name(), "as the tool printed it");
        assertEquals("738c", first.pciDeviceId());
        assertEquals("01", first.pciRevision());
        assertEquals("0c34", first.pciSubsystemDeviceId(), "'Card model' before ROCm 6.1");
        assertEquals("0000:83:00.0", first.pciAddress().toString());
        assertEquals(32752L, first.memoryMiB());
        assertEquals("GPU-79ccd55167a2124a", first.uuid());
        assertEquals("6.3.6", first.driverVersion());
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void newKeyNamesAndGfxVersion() {
        ParsedOutput out = RocmSmiJsonParser.parse(
                Fixtures.host("rocm-smi_radeon-rx-6700-xt_rocm-6.1.2_showallinfo", "rocm-smi.json"), "rocm-smi.json");

        Gpu gpu = out.gpus().get(0);
        assertEquals("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", gpu.name());
        assertEquals("gfx1031", gpu.architecture());
        assertEquals("6601", gpu.pciSubsystemDeviceId(), "'Subsystem ID', not 'Card Model' (= device id) from 6.1");
        assertNull(gpu.uuid(), "Unique ID N/A");
    }

    @Test
    void lowerCaseVramKeyOf2019() {
        ParsedOutput out = RocmSmiJsonParser.parse(
                Fixtures.host("rocm-smi_2x-vega20_radeon-vii_showallinfo", "rocm-smi.json"), "rocm-smi.json");

        assertEquals(2, out.gpus().size());
        assertEquals(16368L, out.gpus().get(0).memoryMiB(), "'vram Total Memory (B)'");
        assertEquals("66af", out.gpus().get(0).pciDeviceId(), "'GPU ID'");
    }

    @Test
    void truncatedJsonIsAnErrorWithItsLine() {
        String text = Fixtures.host("rocm-smi_radeon-instinct-mi50-32gb_vega20_showallinfo", "rocm-smi.json");
        ParsedOutput out = RocmSmiJsonParser.parse(text.substring(0, text.length() / 2), "rocm-smi.json");

        assertTrue(out.gpus().isEmpty());
        Diagnostic d = out.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertEquals("rocm-smi.json", d.file());
        assertTrue(d.line() != null && d.line() > 1, "line of the cut: " + d);
        assertTrue(d.message().contains("not valid JSON"), d.message());
    }

    @Test
    void aListIsNotTheExpectedShape() {
        ParsedOutput out = RocmSmiJsonParser.parse("[1, 2]", "rocm-smi.json");
        assertTrue(out.gpus().isEmpty());
        assertTrue(out.diagnostics().get(0).message().contains("card0"), out.diagnostics().toString());
    }

    @Test
    void garbageFieldsAndUnknownMembersAreReportedNotFatal() {
        String text = "{\"card0\": {\"GPU ID\": \"banana\", \"PCI Bus\": \"nowhere\", \"VRAM Total Memory (B)\": \"lots\","
                + " \"Card Series\": \"Radeon Pro W7900\"}, \"gpu_extra\": {}, \"card1\": 7}";

        ParsedOutput out = RocmSmiJsonParser.parse(text, "rocm-smi.json");

        assertEquals(1, out.gpus().size());
        assertEquals("Radeon Pro W7900", out.gpus().get(0).name());
        var warnings = Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(4, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("GPU ID 'banana'"), warnings.get(0));
        assertTrue(warnings.get(1).contains("PCI Bus 'nowhere'"), warnings.get(1));
        assertTrue(warnings.get(2).contains("VRAM Total Memory"), warnings.get(2));
        assertTrue(warnings.get(3).contains("card1 is not an object"), warnings.get(3));
        assertTrue(Fixtures.lines(out.diagnostics(), Diagnostic.Severity.INFO).get(0).contains("gpu_extra"));
    }
}

package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

class AmdSmiJsonParserTest {

    /** The shape before ROCm 6.4: a bare list, sizes as strings, driver keys with a prefix. */
    private static final String BARE_LIST = """
            [
              {
                "gpu": 0,
                "asic": {"market_name": "AMD Instinct MI210", "vendor_id": "0x1002", "device_id": "0x740f",
                         "subvendor_id": "0x1002", "rev_id": "0x02", "asic_serial": "0x79CCD55167A2124A",
                         "num_compute_units": 104, "target_graphics_version": "gfx90a"},
                "bus": {"bdf": "0000:83:00.0", "slot_type": "PCIE"},
                "driver": {"driver_name": "amdgpu", "driver_version": "6.3.6"},
                "vram": {"vram_type": "HBM2E", "vram_size": "65520 MB"}
              }
            ]
            """;

    @Test
    void readsTheBareListShape() {
        ParsedOutput out = AmdSmiJsonParser.parse(BARE_LIST, "amd-smi.json");

        assertEquals(1, out.gpus().size());
        Gpu gpu = out.gpus().get(0);
        assertEquals("AMD Instinct MI210", gpu.name());
        assertEquals("740f", gpu.pciDeviceId());
        assertEquals("02", gpu.pciRevision());
        assertEquals(65520L, gpu.memoryMiB());
        assertEquals("6.3.6", gpu.driverVersion());
        assertEquals(GpuInterface.PCIE, gpu.interfaceType());
        assertEquals("GPU-79ccd55167a2124a", gpu.uuid(), "the same id rocm-smi and rocminfo print");
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void readsTheGpuDataShapeWithValueUnitSizes() {
        String text = "{\"gpu_data\": [{\"gpu\": 0, \"asic\": {\"market_name\": \"AMD Instinct MI300X\", \"device_id\": \"0x74a1\"},"
                + " \"bus\": {\"bdf\": \"0002:05:00.0\", \"slot_type\": \"OAM\"},"
                + " \"vram\": {\"size\": {\"value\": 192, \"unit\": \"GB\"}}, \"partition\": {\"compute_partition\": \"CPX\"}}]}";

        Gpu gpu = AmdSmiJsonParser.parse(text, "amd-smi.json").gpus().get(0);

        assertEquals("0002:05:00.0", gpu.pciAddress().toString());
        assertEquals(196608L, gpu.memoryMiB());
        assertEquals(GpuInterface.OAM, gpu.interfaceType());
        assertEquals("cpx", gpu.partitioning().kind());
        assertTrue(gpu.partitioning().enabled());
    }

    @Test
    void garbageFieldsAreWarningsNamingThePath() {
        String text = "{\"gpu_data\": [{\"asic\": {\"device_id\": \"banana\"}, \"bus\": {\"bdf\": \"x\"},"
                + " \"vram\": {\"size\": \"huge\"}, \"mystery\": 1}, 7]}";

        ParsedOutput out = AmdSmiJsonParser.parse(text, "amd-smi.json");

        assertEquals(1, out.gpus().size());
        var warnings = Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(4, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("gpu_data[0].asic.device_id 'banana'"), warnings.get(0));
        assertTrue(warnings.get(1).contains("gpu_data[0].bus.bdf 'x'"), warnings.get(1));
        assertTrue(warnings.get(2).contains("gpu_data[0].vram.size"), warnings.get(2));
        assertTrue(warnings.get(3).contains("gpu_data[1] is not an object"), warnings.get(3));
    }

    @Test
    void wrongShapesAndBrokenJsonAreErrors() {
        for (String text : new String[] {"{\"gpus\": []}", "{\"gpu_data\": [", "\"text\""}) {
            ParsedOutput out = AmdSmiJsonParser.parse(text, "amd-smi.json");
            assertTrue(out.gpus().isEmpty(), text);
            assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity(), text);
            assertEquals("amd-smi.json", out.diagnostics().get(0).file());
        }
        assertFalse(AmdSmiJsonParser.parse("[]", "amd-smi.json").diagnostics().stream()
                .anyMatch(d -> d.severity() == Diagnostic.Severity.ERROR), "an empty list is a host without AMD GPUs");
    }

    private static final class Fixtures {
        static java.util.List<String> lines(java.util.List<Diagnostic> d, Diagnostic.Severity s) {
            return io.gpudetect.probe.Fixtures.lines(d, s);
        }
    }
}
